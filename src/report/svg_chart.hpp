#pragma once
// Inline SVG charts for the report: no script, no external font, so the HTML file stands alone.
// Titles, labels and series names are escaped here; callers pass plain text.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kvb {

struct ChartPoint {
  double x = 0, y = 0;
  double low = 0, high = 0;  // optional whisker (e.g. p10..p90); drawn when high > low
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;
  bool dashed = false;
  bool x_ticks = true;  // false: a dense series (a counted curve) sets the x range, not the ticks
};

struct ReferenceLine {
  double y = 0;
  std::string label;  // e.g. "link ceiling 63.0 GB/s"
};

struct VerticalMarker {
  double x = 0;
  std::string label;  // e.g. "knee 45 GiB"
};

struct LineChart {
  std::string title;
  std::string x_label, y_label;
  bool log2_x = false;                          // block sizes: evenly spaced powers of two
  std::function<std::string(double)> x_format;  // tick labels; default "%g"
  std::vector<ChartSeries> series;
  std::vector<ReferenceLine> references;
  std::vector<VerticalMarker> markers;  // drawn as labelled vertical lines at x
};

// An <svg> element with class "chart"; each series is a <polyline class="series"> with circles
// that carry a <title> tooltip of the value. Empty series are skipped; a chart with no point
// at all says so in its body rather than drawing empty axes.
std::string render_line_chart(const LineChart& chart);

// The fixed palette, by series index (colour-blind friendly, Okabe-Ito).
const std::string& series_color(std::size_t index);

}  // namespace kvb

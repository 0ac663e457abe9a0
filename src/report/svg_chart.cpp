#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "report/html_escape.hpp"

namespace kvb {
namespace {

constexpr double kWidth = 600, kPlotTop = 44, kPlotBottom = 270, kPlotLeft = 68, kPlotRight = 580;
constexpr double kLegendTop = 338, kLegendRow = 20, kLegendItem = 260;
constexpr double kTitleLeft = 10;

// The smallest of 1, 2, 2.5, 5 x 10^k at or above v: axis maxima people can read.
double nice_ceiling(double v) {
  if (!(v > 0)) return 1;
  const double e = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * e >= v * (1 - 1e-12)) return m * e;
  }
  return 10 * e;
}

std::string num(double v) { return fmt::format("{:.1f}", v); }

// Text widths without a font engine: the widest digits and lower-case letters of a sans-serif face
// at these sizes stay under these advances, so an estimate from them never underestimates much.
constexpr double kTickCharWidth = 7.0;  // 12 px tick labels
constexpr double kTickGap = 6;
constexpr double kTitleCharWidth = 8.6;  // 15 px bold titles

// The title, from the left edge; squeezed to the chart's width (textLength) when it would run off.
std::string title_text(const std::string& title) {
  const double room = kWidth - 2 * kTitleLeft;
  const double estimate = kTitleCharWidth * static_cast<double>(title.size());
  const std::string fit = estimate > room
                              ? fmt::format(" textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\"", num(room))
                              : std::string();
  return fmt::format("<text class=\"chart-title\" x=\"{}\" y=\"24\"{}>{}</text>\n", kTitleLeft, fit,
                     html_escape(title));
}

}  // namespace

const std::string& series_color(std::size_t index) {
  static const std::vector<std::string> palette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return palette[index % palette.size()];
}

namespace {

// Where a chart's data lies and how it maps onto the plot: the data's extent, nice y ticks that
// hold 0, x ticks at the data's own x values (log2 where asked).
struct ChartFrame {
  const LineChart& c;
  std::set<double> xs{}, all_x{};  // xs: where ticks go; all_x: the x range
  double ymax = 0, ymin = 0;       // the axis always holds 0; below it only when a value is negative
  std::size_t drawn = 0;
  double y_step = 1, y_bottom = 0, y_top = 1, x_lo = 0, x_hi = 1;

  bool drawable(const ChartPoint& p) const {
    return std::isfinite(p.x) && std::isfinite(p.y) && !(c.log2_x && p.x <= 0);
  }
  double xcoord(double x) const { return c.log2_x ? std::log2(std::max(x, 1e-300)) : x; }
  std::string xlabel(double x) const { return c.x_format ? c.x_format(x) : fmt::format("{:g}", x); }
  double px(double x) const {
    return kPlotLeft + (xcoord(x) - x_lo) / (x_hi - x_lo) * (kPlotRight - kPlotLeft);
  }
  double py(double y) const {
    return kPlotBottom - std::clamp((y - y_bottom) / (y_top - y_bottom), 0.0, 1.0) * (kPlotBottom - kPlotTop);
  }
};

ChartFrame frame_for(const LineChart& c) {
  ChartFrame f{c};
  for (const auto& s : c.series) {
    for (const auto& p : s.points) {
      if (!f.drawable(p)) continue;
      if (s.x_ticks) f.xs.insert(p.x);
      f.all_x.insert(p.x);
      f.ymax = std::max({f.ymax, p.y, p.high});
      f.ymin = std::min({f.ymin, p.y, p.high > p.low ? p.low : 0.0});
      ++f.drawn;
    }
  }
  for (const auto& r : c.references) f.ymax = std::max(f.ymax, r.y);
  if (f.drawn == 0) return f;
  // Positive data: 0 to a nice maximum in five steps. Signed data: one nice step for both sides,
  // so the ticks are round numbers and one of them is 0.
  f.y_step = nice_ceiling(f.ymax * 1.05) / 5;
  if (f.ymin < 0) f.y_step = nice_ceiling((f.ymax - f.ymin) * 1.05 / 5);
  f.y_bottom = f.ymin < 0 ? -f.y_step * std::ceil(-f.ymin * 1.05 / f.y_step) : 0.0;
  f.y_top = f.ymin < 0 ? f.y_step * std::ceil(f.ymax * 1.05 / f.y_step) : 5 * f.y_step;
  if (f.xs.empty()) f.xs = f.all_x;
  f.x_lo = f.xcoord(*f.all_x.begin());
  f.x_hi = f.xcoord(*f.all_x.rbegin());
  if (f.x_hi - f.x_lo < 1e-12) {
    f.x_lo -= 1;
    f.x_hi += 1;
  }
  const double pad = (f.x_hi - f.x_lo) * 0.04;
  f.x_lo -= pad;
  f.x_hi += pad;
  return f;
}

// Grid, y ticks, x ticks (a label that would touch the one before it is left out: 39 and 43 GiB
// side by side printed as "3943"; its tick kept), the axes and their labels.
void draw_axes(std::string& out, const ChartFrame& f) {
  const auto& c = f.c;
  const int y_ticks = static_cast<int>(std::lround((f.y_top - f.y_bottom) / f.y_step));
  for (int i = 0; i <= y_ticks; ++i) {
    const double v = f.y_bottom + f.y_step * i;
    out += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", kPlotLeft,
                       num(f.py(v)), kPlotRight, num(f.py(v)));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{:g}</text>\n",
                       kPlotLeft - 6, num(f.py(v) + 4), v);
  }
  double last_right = -1e9;
  for (const double x : f.xs) {
    const auto label = f.xlabel(x);
    const double half = kTickCharWidth * static_cast<double>(label.size()) / 2;
    out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", num(f.px(x)),
                       kPlotBottom, kPlotBottom + 5);
    if (f.px(x) - half < last_right + kTickGap) continue;
    last_right = f.px(x) + half;
    out += fmt::format("<text class=\"tick tick-x\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       num(f.px(x)), kPlotBottom + 18, html_escape(label));
  }
  if (f.y_bottom < 0) {  // the zero line, where a signed quantity changes sign
    out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", kPlotLeft,
                       num(f.py(0)), kPlotRight);
  }
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", kPlotLeft,
                     kPlotTop, kPlotBottom);
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", kPlotLeft,
                     kPlotRight, kPlotBottom);
  out += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (kPlotLeft + kPlotRight) / 2, kPlotBottom + 38, html_escape(c.x_label));
  out += fmt::format(
      "<text class=\"axis-label\" transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}"
      "</text>\n",
      (kPlotTop + kPlotBottom) / 2, html_escape(c.y_label));
}

// Vertical markers (the knee, a floor, a cap) labelled at the top, and reference lines (link
// ceilings), all under the data.
void draw_markers(std::string& out, const ChartFrame& f) {
  const auto& c = f.c;
  for (std::size_t i = 0; i < c.markers.size(); ++i) {
    const auto& m = c.markers[i];
    if (!std::isfinite(m.x) || (c.log2_x && m.x <= 0)) continue;
    const double x = std::clamp(f.px(m.x), kPlotLeft, kPlotRight);
    // Labels right of the line, or left of it in the plot's right half, so none runs off the chart.
    const bool left = x > (kPlotLeft + kPlotRight) / 2;
    out += fmt::format(
        "<line class=\"reference\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"><title>{3}</title></line>"
        "<text class=\"tick\" x=\"{4}\" y=\"{5}\" text-anchor=\"{6}\">{3}</text>\n",
        num(x), kPlotTop, kPlotBottom, html_escape(m.label), num(left ? x - 3 : x + 3),
        num(kPlotTop + 12 + 14 * static_cast<double>(i)), left ? "end" : "start");
  }
  for (const auto& r : c.references) {
    out += fmt::format(
        "<line class=\"reference\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>{}</title></line>\n",
        kPlotLeft, num(f.py(r.y)), kPlotRight, num(f.py(r.y)), html_escape(r.label));
  }
}

// Each series as a line joining its points left to right, with whiskers and hover titles.
void draw_series(std::string& out, const ChartFrame& f) {
  const auto& c = f.c;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    auto s = c.series[i];
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    const auto& color = series_color(i);
    std::string points;
    std::string marks;
    for (const auto& p : s.points) {
      if (!f.drawable(p)) continue;
      points += fmt::format("{},{} ", num(f.px(p.x)), num(f.py(p.y)));
      if (p.high > p.low) {
        marks += fmt::format(
            "<line class=\"whisker\" stroke=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" y2=\"{3}\"/>", color,
            num(f.px(p.x)), num(f.py(p.low)), num(f.py(p.high)));
      }
      marks += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}: {} = {:.4g}</title></circle>",
          num(f.px(p.x)), num(f.py(p.y)), color, html_escape(s.name), html_escape(f.xlabel(p.x)), p.y);
    }
    if (points.empty()) continue;
    points.pop_back();
    out += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\">"
        "<title>{}</title></polyline>\n",
        color, s.dashed ? " stroke-dasharray=\"6 4\"" : "", points, html_escape(s.name));
    out += marks + "\n";
  }
}

// Legend: series, then reference lines, in rows under the plot.
void draw_legend(std::string& out, const LineChart& c) {
  const auto per_row = static_cast<std::size_t>(std::floor((kPlotRight - kPlotLeft) / kLegendItem));
  std::size_t slot = 0;
  const auto legend_xy = [&](std::size_t n) {
    return std::pair<double, double>{kPlotLeft + static_cast<double>(n % per_row) * kLegendItem,
                                     kLegendTop + static_cast<double>(n / per_row) * kLegendRow};
  };
  for (std::size_t i = 0; i < c.series.size(); ++i, ++slot) {
    const auto [lx, ly] = legend_xy(slot);
    out += fmt::format(
        "<g class=\"legend\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-width=\"3\"{}/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
        num(lx), num(ly - 4), num(lx + 22), num(ly - 4), series_color(i),
        c.series[i].dashed ? " stroke-dasharray=\"6 4\"" : "", num(lx + 28), num(ly),
        html_escape(c.series[i].name));
  }
  for (const auto& r : c.references) {
    const auto [lx, ly] = legend_xy(slot++);
    out += fmt::format(
        "<g class=\"legend\"><line class=\"reference\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text></g>\n",
        num(lx), num(ly - 4), num(lx + 22), num(ly - 4), num(lx + 28), num(ly), html_escape(r.label));
  }
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  const auto frame = frame_for(c);
  const double legend_rows = std::ceil(static_cast<double>(c.series.size() + c.references.size()) /
                                       std::floor((kPlotRight - kPlotLeft) / kLegendItem));
  const double height = kLegendTop + std::max(1.0, legend_rows) * kLegendRow + 8;
  std::string out = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "height=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n<title>{}</title>\n",
      kWidth, num(height), kWidth, num(height), html_escape(c.title), html_escape(c.title));
  out += title_text(c.title);
  if (frame.drawn == 0) {
    out += fmt::format("<text class=\"empty\" x=\"{}\" y=\"{}\">no data to draw</text>\n</svg>\n", kPlotLeft,
                       (kPlotTop + kPlotBottom) / 2);
    return out;
  }
  draw_axes(out, frame);
  draw_markers(out, frame);
  draw_series(out, frame);
  draw_legend(out, c);
  out += "</svg>\n";
  return out;
}

}  // namespace kvb

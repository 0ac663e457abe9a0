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
constexpr double kTickCharWidth = 7.0;    // 12 px tick labels
constexpr double kTickGap = 6;
constexpr double kTitleCharWidth = 8.6;   // 15 px bold titles

// The title, from the left edge; squeezed to the chart's width (textLength) when it would run off.
std::string title_text(const std::string& title) {
  const double room = kWidth - 2 * kTitleLeft;
  const double estimate = kTitleCharWidth * static_cast<double>(title.size());
  const std::string fit =
      estimate > room ? fmt::format(" textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\"", num(room)) : std::string();
  return fmt::format("<text class=\"chart-title\" x=\"{}\" y=\"24\"{}>{}</text>\n", kTitleLeft, fit, html_escape(title));
}

}  // namespace

const std::string& series_color(std::size_t index) {
  static const std::vector<std::string> palette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return palette[index % palette.size()];
}

std::string render_line_chart(const LineChart& c) {
  const auto xcoord = [&](double x) { return c.log2_x ? std::log2(std::max(x, 1e-300)) : x; };
  const auto xlabel = [&](double x) { return c.x_format ? c.x_format(x) : fmt::format("{:g}", x); };
  std::set<double> xs, all_x;  // xs: where ticks go; all_x: the x range
  double ymax = 0, ymin = 0;  // the axis always holds 0; below it only when a value is negative
  std::size_t drawn = 0;
  for (const auto& s : c.series) {
    for (const auto& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || (c.log2_x && p.x <= 0)) continue;
      if (s.x_ticks) xs.insert(p.x);
      all_x.insert(p.x);
      ymax = std::max({ymax, p.y, p.high});
      ymin = std::min({ymin, p.y, p.high > p.low ? p.low : 0.0});
      ++drawn;
    }
  }
  for (const auto& r : c.references) ymax = std::max(ymax, r.y);
  const double legend_rows = std::ceil(static_cast<double>(c.series.size() + c.references.size()) /
                                       std::floor((kPlotRight - kPlotLeft) / kLegendItem));
  const double height = kLegendTop + std::max(1.0, legend_rows) * kLegendRow + 8;
  std::string out = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n<title>{}</title>\n",
      kWidth, num(height), kWidth, num(height), html_escape(c.title), html_escape(c.title));
  out += title_text(c.title);
  if (drawn == 0) {
    out += fmt::format("<text class=\"empty\" x=\"{}\" y=\"{}\">no data to draw</text>\n</svg>\n", kPlotLeft,
                       (kPlotTop + kPlotBottom) / 2);
    return out;
  }
  // Positive data: 0 to a nice maximum in five steps. Signed data: one nice step for both sides,
  // so the ticks are round numbers and one of them is 0.
  double y_step = nice_ceiling(ymax * 1.05) / 5;
  if (ymin < 0) y_step = nice_ceiling((ymax - ymin) * 1.05 / 5);
  const double y_bottom = ymin < 0 ? -y_step * std::ceil(-ymin * 1.05 / y_step) : 0.0;
  const double y_top = ymin < 0 ? y_step * std::ceil(ymax * 1.05 / y_step) : 5 * y_step;
  if (xs.empty()) xs = all_x;
  double x_lo = xcoord(*all_x.begin()), x_hi = xcoord(*all_x.rbegin());
  if (x_hi - x_lo < 1e-12) {
    x_lo -= 1;
    x_hi += 1;
  }
  const double pad = (x_hi - x_lo) * 0.04;
  x_lo -= pad;
  x_hi += pad;
  const auto px = [&](double x) { return kPlotLeft + (xcoord(x) - x_lo) / (x_hi - x_lo) * (kPlotRight - kPlotLeft); };
  const auto py = [&](double y) {
    return kPlotBottom - std::clamp((y - y_bottom) / (y_top - y_bottom), 0.0, 1.0) * (kPlotBottom - kPlotTop);
  };

  // Grid and y ticks.
  const int y_ticks = static_cast<int>(std::lround((y_top - y_bottom) / y_step));
  for (int i = 0; i <= y_ticks; ++i) {
    const double v = y_bottom + y_step * i;
    out += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", kPlotLeft, num(py(v)),
                       kPlotRight, num(py(v)));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{:g}</text>\n", kPlotLeft - 6,
                       num(py(v) + 4), v);
  }
  // X ticks at the data's own x values; a label that would touch the one before it is left out
  // (39 and 43 GiB side by side printed as "3943"), its tick kept.
  double last_right = -1e9;
  for (const double x : xs) {
    const auto label = xlabel(x);
    const double half = kTickCharWidth * static_cast<double>(label.size()) / 2;
    out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", num(px(x)), kPlotBottom,
                       kPlotBottom + 5);
    if (px(x) - half < last_right + kTickGap) continue;
    last_right = px(x) + half;
    out += fmt::format("<text class=\"tick tick-x\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num(px(x)),
                       kPlotBottom + 18, html_escape(label));
  }
  if (y_bottom < 0) {  // the zero line, where a signed quantity changes sign
    out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", kPlotLeft, num(py(0)),
                       kPlotRight);
  }
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", kPlotLeft, kPlotTop,
                     kPlotBottom);
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", kPlotLeft, kPlotRight,
                     kPlotBottom);
  out += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (kPlotLeft + kPlotRight) / 2, kPlotBottom + 38, html_escape(c.x_label));
  out += fmt::format("<text class=\"axis-label\" transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}"
                     "</text>\n",
                     (kPlotTop + kPlotBottom) / 2, html_escape(c.y_label));

  // Vertical markers (the knee, a floor, a cap) under the data, labelled at the top.
  for (std::size_t i = 0; i < c.markers.size(); ++i) {
    const auto& m = c.markers[i];
    if (!std::isfinite(m.x) || (c.log2_x && m.x <= 0)) continue;
    const double x = std::clamp(px(m.x), kPlotLeft, kPlotRight);
    // Labels right of the line, or left of it in the plot's right half, so none runs off the chart.
    const bool left = x > (kPlotLeft + kPlotRight) / 2;
    out += fmt::format("<line class=\"reference\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"><title>{3}</title></line>"
                       "<text class=\"tick\" x=\"{4}\" y=\"{5}\" text-anchor=\"{6}\">{3}</text>\n",
                       num(x), kPlotTop, kPlotBottom, html_escape(m.label), num(left ? x - 3 : x + 3),
                       num(kPlotTop + 12 + 14 * static_cast<double>(i)), left ? "end" : "start");
  }
  // Reference lines (link ceilings) under the data.
  for (const auto& r : c.references) {
    out += fmt::format("<line class=\"reference\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>{}</title></line>\n",
                       kPlotLeft, num(py(r.y)), kPlotRight, num(py(r.y)), html_escape(r.label));
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    auto s = c.series[i];
    // A line joins points left to right, whatever order they came in.
    std::stable_sort(s.points.begin(), s.points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    const auto& color = series_color(i);
    std::string points;
    std::string marks;
    for (const auto& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || (c.log2_x && p.x <= 0)) continue;
      points += fmt::format("{},{} ", num(px(p.x)), num(py(p.y)));
      if (p.high > p.low) {
        marks += fmt::format("<line class=\"whisker\" stroke=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" y2=\"{3}\"/>",
                             color, num(px(p.x)), num(py(p.low)), num(py(p.high)));
      }
      marks += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}: {} = {:.4g}</title></circle>",
                           num(px(p.x)), num(py(p.y)), color, html_escape(s.name), html_escape(xlabel(p.x)), p.y);
    }
    if (points.empty()) continue;
    points.pop_back();
    out += fmt::format("<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\">"
                       "<title>{}</title></polyline>\n",
                       color, s.dashed ? " stroke-dasharray=\"6 4\"" : "", points, html_escape(s.name));
    out += marks + "\n";
  }
  // Legend: series, then reference lines.
  const auto per_row = static_cast<std::size_t>(std::floor((kPlotRight - kPlotLeft) / kLegendItem));
  std::size_t slot = 0;
  const auto legend_xy = [&](std::size_t n) {
    return std::pair<double, double>{kPlotLeft + static_cast<double>(n % per_row) * kLegendItem,
                                     kLegendTop + static_cast<double>(n / per_row) * kLegendRow};
  };
  for (std::size_t i = 0; i < c.series.size(); ++i, ++slot) {
    const auto [lx, ly] = legend_xy(slot);
    out += fmt::format("<g class=\"legend\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                       "stroke-width=\"3\"{}/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
                       num(lx), num(ly - 4), num(lx + 22), num(ly - 4), series_color(i),
                       c.series[i].dashed ? " stroke-dasharray=\"6 4\"" : "", num(lx + 28), num(ly),
                       html_escape(c.series[i].name));
  }
  for (const auto& r : c.references) {
    const auto [lx, ly] = legend_xy(slot++);
    out += fmt::format("<g class=\"legend\"><line class=\"reference\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{}</text></g>\n",
                       num(lx), num(ly - 4), num(lx + 22), num(ly - 4), num(lx + 28), num(ly), html_escape(r.label));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace kvb

// The report's charts and tables read true (issue 24 §4), each defect a property of the SVG/HTML:
// tick labels that would touch are thinned, an axis carries one signed quantity, titles fit,
// rows that do not fit say "-", and one configuration's command is listed once.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "report/report_inputs.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

struct Label {
  double x;
  std::string text;
};

std::vector<Label> x_tick_labels(const std::string& svg) {
  std::vector<Label> out;
  const std::regex re("<text class=\"tick tick-x\" x=\"([0-9.]+)\"[^>]*>([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
    out.push_back({std::stod((*it)[1]), (*it)[2]});
  }
  return out;
}

LineChart tier_sizes(const std::vector<double>& xs) {
  LineChart c;
  c.title = "t";
  ChartSeries s{.name = "s", .points = {}, .dashed = false};
  for (const double x : xs) s.points.push_back({.x = x, .y = 1, .low = 0, .high = 0});
  c.series = {s};
  return c;
}

TEST(ReportLegibility, TickLabelsThatWouldTouchAreThinned) {
  // The tier-size grid that printed "3943": 39 and 43 GiB are 4 GiB apart on a 0..143 axis (13 px).
  const auto labels =
      x_tick_labels(render_line_chart(tier_sizes({0, 4, 6, 9, 13, 20, 29, 39, 43, 65, 96, 143})));
  ASSERT_GE(labels.size(), 4u);
  for (std::size_t i = 1; i < labels.size(); ++i) {
    // Centred labels of n and m characters at 7 px each need (n + m) / 2 x 7 px between centres.
    const double need = 3.5 * static_cast<double>(labels[i - 1].text.size() + labels[i].text.size());
    EXPECT_GE(labels[i].x - labels[i - 1].x, need) << labels[i - 1].text << " and " << labels[i].text;
  }
  // Spread-out values keep every label.
  EXPECT_EQ(x_tick_labels(render_line_chart(tier_sizes({0, 50, 100, 150}))).size(), 4u);
}

TEST(ReportLegibility, NegativeValuesAreDrawnBelowAZeroLine) {
  auto c = tier_sizes({0, 10, 20});
  c.series[0].points = {{.x = 0, .y = 0, .low = 0, .high = 0},
                        {.x = 10, .y = -40, .low = 0, .high = 0},
                        {.x = 20, .y = -80, .low = 0, .high = 0}};
  const auto svg = render_line_chart(c);
  const std::regex circle("<circle cx=\"[0-9.]+\" cy=\"([0-9.]+)\"");
  std::vector<double> ys;
  for (std::sregex_iterator it(svg.begin(), svg.end(), circle), end; it != end; ++it)
    ys.push_back(std::stod((*it)[1]));
  ASSERT_EQ(ys.size(), 3u);
  EXPECT_LT(ys[0], ys[1]);  // SVG y grows downwards: -40 below 0, -80 below -40
  EXPECT_LT(ys[1], ys[2]);
  EXPECT_NE(svg.find(">-100</text>"), std::string::npos);  // the axis reaches the nice floor below -80
}

TEST(ReportLegibility, ALongTitleIsFittedToTheChart) {
  auto c = tier_sizes({1, 2});
  c.title = std::string(120, 'W');
  EXPECT_NE(render_line_chart(c).find("lengthAdjust=\"spacingAndGlyphs\""), std::string::npos);
  c.title = "short";
  EXPECT_EQ(render_line_chart(c).find("textLength"), std::string::npos);
}

Sizing simulated_row() {
  Sizing r;
  r.server.model = "llama-3.1-8b";
  r.server.hardware = "h100";
  r.server.tensor_parallel_size = 1;
  r.weights_fit = true;
  r.layout.types.push_back({.kind = KvGroupKind::kFull, .layers = 32, .bytes_per_token_layer = 4096});
  r.server.max_model_len = 32'768;
  r.gpu_kv_tokens = 446'096;
  r.max_concurrency = 13.6;
  r.vllm_command = "vllm serve m \\\n    --kv-offloading-size 41";
  TierRecommendation v;
  v.basis = RecommendationBasis::kSimulation;
  v.workload = "chat-multi-turn";
  v.objective = v.decided_by = TierObjective::kTtftP99;
  v.kv_offloading_size_gib = 41;
  v.pays = true;
  v.floor_gib = 8;
  v.cap_gib = 143;
  for (const double gib : {0.0, 41.0, 143.0}) {
    TierCurvePoint p;
    p.kv_offloading_size_gib = gib;
    p.gain = gib > 0 ? 0.796 : 0;  // a 79.6% TTFT cut
    p.cpu_hit_rate = gib > 0 ? 0.35 : 0;
    v.curve.push_back(p);
  }
  r.offload.emplace().recommendation = v;
  return r;
}

TEST(ReportLegibility, EachAxisCarriesOneQuantityWithItsSign) {
  const auto html =
      recommendation_section_html({simulated_row()}, "Assumed hardware: h100 (no GPU found on this node)");
  EXPECT_NE(html.find("TTFT p99 vs no tier (%, below 0 = faster)"), std::string::npos);
  EXPECT_NE(html.find("CPU-tier hits (% of prompt tokens)"), std::string::npos);
  EXPECT_EQ(html.find("gain vs no tier"), std::string::npos);
  EXPECT_NE(html.find("ttft-p99: 41 = -79.6"),
            std::string::npos);  // the cut drawn negative, as the text says
  // The first line says which hardware was assumed, before the recommendation.
  EXPECT_LT(html.find("Assumed hardware: h100"), html.find("--kv-offloading-size 41"));
}

TEST(ReportLegibility, RowsThatDoNotFitSayDashAndCommandsAreListedOnce) {
  auto fits = simulated_row();
  auto same = fits;  // the workload's sizing and the table's row of one configuration
  Sizing big;        // no plan: its weights do not fit
  big.server.model = "llama-3.1-405b";
  big.server.hardware = "h100";
  big.server.tensor_parallel_size = 1;
  big.weights_fit = false;
  // 126 layers x 2 x 8 heads x 128 x 2 B
  big.layout.types.push_back({.kind = KvGroupKind::kFull, .layers = 126, .bytes_per_token_layer = 4096});
  big.server.max_model_len = 131'072;
  big.vllm_command = "vllm serve big";
  const auto html = sizing_section_html({fits, same, big});
  const auto row = html.substr(html.find("<td>llama-3.1-405b</td>"));
  EXPECT_EQ(row.substr(0, row.find("</tr>")).find(">0<"), std::string::npos);
  EXPECT_NE(row.substr(0, row.find("</tr>")).find(">-<"), std::string::npos);
  std::size_t listed = 0;
  for (auto p = html.find("<summary>llama-3.1-8b"); p != std::string::npos;
       p = html.find("<summary>llama-3.1-8b", p + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, 1u);
  // Two rows of one model (the workload's simulated size and the rule's) say which is which.
  EXPECT_NE(html.find("<td>simulated for chat-multi-turn</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>rule (sessions kept warm)</td>"), std::string::npos);
}

}  // namespace
}  // namespace kvb

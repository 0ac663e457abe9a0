// kvbench report: escaping, chart geometry, the page's structure, input checks; and the
// Prometheus text of kvbench dma --format prom.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "calibrate/calibration_file.hpp"
#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "dma/dma_json.hpp"
#include "output/calibrate/calibrate_documents.hpp"
#include "output/dma/dma_output.hpp"
#include "output/dma/dma_prometheus.hpp"
#include "report/html_escape.hpp"
#include "report/report_inputs.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"
#include "test_helpers.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

using test::count_of;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

nlohmann::json host_profile() {
  std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/host-dma-profile.json");
  return nlohmann::json::parse(in);
}

TEST(HtmlEscape, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(html_escape("plain 2 MiB"), "plain 2 MiB");
}

// The x pixel of each circle, in drawing order.
std::vector<double> circle_xs(const std::string& svg) {
  std::vector<double> xs;
  const std::regex re("<circle cx=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    xs.push_back(std::stod((*it)[1].str()));
  }
  return xs;
}

TEST(SvgChart, LogTwoAxisSpacesPowersOfTwoEvenly) {
  LineChart c;
  c.title = "t";
  c.log2_x = true;
  c.series.push_back({"ce", {{4096, 1, 0, 0}, {8192, 2, 0, 0}, {16384, 3, 0, 0}, {65536, 4, 0, 0}}, false});
  const auto svg = render_line_chart(c);
  const auto xs = circle_xs(svg);
  ASSERT_EQ(xs.size(), 4u);
  const double octave = xs[1] - xs[0];
  EXPECT_GT(octave, 0);
  EXPECT_NEAR(xs[2] - xs[1], octave, 0.11);      // one doubling
  EXPECT_NEAR(xs[3] - xs[2], 2 * octave, 0.11);  // two doublings
  // The data sit inside the plot area (x from 68 to 580 px in a 600 px chart), inset equally at
  // both ends: the axis spans the smallest to the largest size, nothing is drawn in the margins.
  EXPECT_GT(xs.front(), 68);
  EXPECT_LT(xs.back(), 580);
  EXPECT_NEAR(xs.front() - 68, 580 - xs.back(), 0.11);
}

TEST(SvgChart, DrawsEachSeriesItsPointsAndTheCeiling) {
  LineChart c;
  c.title = "h2d <b>";
  c.series.push_back({"ce", {{1, 10, 8, 12}, {2, 20, 0, 0}}, false});
  c.series.push_back({"kernel", {{1, 30, 0, 0}}, true});
  c.series.push_back({"empty", {}, false});
  c.references.push_back({63, "link ceiling 63 GB/s"});
  const auto svg = render_line_chart(c);
  EXPECT_EQ(count_of(svg, "<polyline class=\"series\""), 2u);  // the empty series draws nothing
  EXPECT_EQ(count_of(svg, "<circle"), 3u);
  EXPECT_EQ(count_of(svg, "class=\"whisker\""), 1u);
  EXPECT_EQ(count_of(svg, "stroke-dasharray=\"6 4\""), 2u);  // dashed line and its legend entry
  EXPECT_NE(svg.find("<line class=\"reference\""), std::string::npos);
  EXPECT_NE(svg.find("h2d &lt;b&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
}

TEST(SvgChart, HigherValuesAreDrawnHigher) {
  LineChart c;
  c.series.push_back({"s", {{1, 10, 0, 0}, {2, 40, 0, 0}}, false});
  const auto svg = render_line_chart(c);
  const std::regex re("<circle cx=\"[0-9.]+\" cy=\"([0-9.]+)\"");
  std::vector<double> ys;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    ys.push_back(std::stod((*it)[1].str()));
  }
  ASSERT_EQ(ys.size(), 2u);
  EXPECT_LT(ys[1], ys[0]);  // SVG y grows downwards
}

TEST(SvgChart, ChartWithoutDataSaysSo) {
  LineChart c;
  c.title = "nothing";
  const auto svg = render_line_chart(c);
  EXPECT_NE(svg.find("no data to draw"), std::string::npos);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);
}

ReportInputs inputs_with_device(const std::string& device) {
  auto doc = host_profile();
  for (auto& r : doc["records"]) r["device"] = device;
  ReportInputs in;
  add_report_document(in, doc, "dma.json");
  return in;
}

TEST(ReportPage, DeviceNameWithScriptIsEscaped) {
  const auto in = inputs_with_device("<script>alert(1)</script>");
  const auto html =
      report_html(in, ReportContext{"kvbench test", "now", "<img src=x onerror=alert(2)>", "test"});
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);
  EXPECT_EQ(lower(html).find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // No script may run even so: the policy forbids it.
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(ReportPage, SelfContainedWithOneChartPerDirectionPresent) {
  const auto in = inputs_with_device("Test GPU");
  const auto html = report_html(in, ReportContext{"kvbench test", "now", "host", "test"});
  // host-dma-profile.json holds ce h2d and d2h only: two charts, no bidir chart.
  EXPECT_EQ(count_of(html, "<svg class=\"chart\""), 2u);
  EXPECT_EQ(count_of(html, "<polyline class=\"series\""), 2u);
  // The only URL in an attribute is the SVG namespace: nothing is fetched from anywhere.
  std::size_t urls = 0;
  for (auto at = html.find("=\"http"); at != std::string::npos; at = html.find("=\"http", at + 1), ++urls) {
    EXPECT_EQ(html.compare(at - 5, 33, "xmlns=\"http://www.w3.org/2000/svg"), 0) << html.substr(at - 10, 60);
  }
  EXPECT_EQ(urls, 2u);  // one namespace per chart
  for (const char* external : {"<link", "src=\"http", "href=\"http", "@import", "url("}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
  EXPECT_NE(html.find("Not measured"), std::string::npos);  // compute slowdown says it was not measured
}

TEST(ReportPage, ComputeSlowdownIsDrawnOnlyFromMeasuredCases) {
  auto in = inputs_with_device("GPU");
  const auto without = report_html(in, ReportContext{"t", "now", "host", "test"});
  EXPECT_NE(without.find("none of these results ran with"), std::string::npos);
  for (auto& r : in.dma) {
    r.tcase.with_compute = true;
    r.compute_alone_per_s = 100;
    r.compute_during_per_s = 80;
    r.compute_slowdown = 1.25;
    r.compute_load = "test load";
  }
  const auto with = report_html(in, ReportContext{"t", "now", "host", "test"});
  EXPECT_EQ(with.find("none of these results ran with"), std::string::npos);
  EXPECT_NE(with.find("compute load: rate alone / rate during copies"), std::string::npos);
  // Copies measured under the load stay off the bandwidth charts: only the slowdown chart is left.
  EXPECT_EQ(count_of(without, "<svg class=\"chart\""), 2u);
  EXPECT_EQ(count_of(with, "<svg class=\"chart\""), 1u);
  EXPECT_EQ(with.find("host to device (h2d)"), std::string::npos);
}

TEST(ReportPage, PeersOfTheSameDeviceAreDrawnSideBySide) {
  auto in = inputs_with_device("GPU X");
  const auto alone = report_html(in, ReportContext{"t", "now", "host", "test"});
  EXPECT_EQ(alone.find("beside its peers"), std::string::npos);  // one tool: nothing to compare
  auto peer = in.dma;
  for (auto& r : peer) r.device.backend = "torch";
  in.dma.insert(in.dma.end(), peer.begin(), peer.end());
  const auto both = report_html(in, ReportContext{"t", "now", "host", "test"});
  EXPECT_NE(both.find("GPU X: kvbench beside its peers"), std::string::npos);
  // Per backend: h2d and d2h charts (2 + 2), plus the side-by-side h2d and d2h charts.
  EXPECT_EQ(count_of(both, "<svg class=\"chart\""), 6u);
  EXPECT_NE(both.find("torch ce"), std::string::npos);
}

TEST(SvgChart, PointsAreJoinedLeftToRight) {
  LineChart c;
  c.series.push_back({"s", {{4, 1, 0, 0}, {1, 2, 0, 0}, {2, 3, 0, 0}}, false});
  const auto xs = circle_xs(render_line_chart(c));
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_LT(xs[0], xs[1]);
  EXPECT_LT(xs[1], xs[2]);
}

TEST(ReportInputs, UnknownOrMalformedDocumentsNameTheFile) {
  ReportInputs in;
  try {
    add_report_document(in, nlohmann::json{{"schema", "other/v9"}}, "x.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: schema 'other/v9' is not a kvbench result"),
              std::string::npos);
  }
  try {
    add_report_document(in, nlohmann::json{{"schema", "kvbench/simulate/v1"}, {"points", 3}}, "sim.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("sim.json: malformed kvbench/simulate/v1"), std::string::npos)
        << e.what();
  }
  // A schema that is not a string (found by mutating result files): a usage error naming the
  // file, not a JSON type error escaping as exit 3.
  for (const auto& schema : {nlohmann::json(1e308), nlohmann::json(nullptr), nlohmann::json::array()}) {
    EXPECT_THROW(add_report_document(in, nlohmann::json{{"schema", schema}}, "odd.json"), UsageError);
    EXPECT_THROW((void)dma_records_from_json(nlohmann::json{{"schema", schema}}, "odd.json"), UsageError);
  }
}

// A well-formed simulate or size document with nothing to draw is refused naming the file; the
// same document with its points (a golden one) is read whole, under the name it was given.
TEST(ReportInputs, ResultsWithNothingToDrawAreRefusedNamingTheFile) {
  std::ifstream file(std::string(KVBENCH_TEST_DATA) + "/../golden/simulate-doc-qa.json");
  auto sim = nlohmann::json::parse(file);
  ReportInputs in;
  add_report_document(in, sim, "doc-qa.json");
  ASSERT_EQ(in.simulations.size(), 1u);
  EXPECT_EQ(in.simulations[0].origin, "doc-qa.json");
  EXPECT_EQ(in.simulations[0].document.points.size(), sim.at("points").size());
  sim["points"] = nlohmann::json::array();
  try {
    add_report_document(in, sim, "empty-sim.json");
    FAIL() << "a simulate result with no points was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "empty-sim.json: a simulate result with no points");
  }
  const nlohmann::json size{
      {"schema", "kvbench/size/v1"}, {"tool", "kvbench 0.1.0"}, {"results", nlohmann::json::array()}};
  try {
    add_report_document(in, size, "empty-size.json");
    FAIL() << "a size result with no configurations was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "empty-size.json: a size result with no configurations");
  }
  EXPECT_EQ(in.simulations.size(), 1u);  // nothing added by a refused document
  EXPECT_TRUE(in.sizings.empty());
}

TEST(DefaultAssessment, DetectsHardwareFromTheGpuName) {
  EXPECT_EQ(hardware_for_device_name("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(hardware_for_device_name("NVIDIA H200"), "h200");
  EXPECT_EQ(hardware_for_device_name("NVIDIA GH200 480GB"), "gh200");  // not h200
  EXPECT_EQ(hardware_for_device_name("NVIDIA B200"), "b200");
  EXPECT_EQ(hardware_for_device_name("AMD Instinct MI300X"), "mi300x");
  EXPECT_EQ(hardware_for_device_name("Tesla T4"), "");
}

TEST(Prometheus, OneSamplePerMeasuredCasePerMetricWithEscapedLabels) {
  auto doc = host_profile();
  doc["records"][0]["device"] = "GPU \"x\"\\y";
  const auto records = dma_records_from_json(doc, "p.json");
  const auto text = dma_prometheus(records);
  const std::regex sample(R"(^kvbench_dma_median_gbps\{[^}]*\} [0-9.e+-]+$)");
  std::size_t samples = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const auto line = text.substr(pos, end - pos);
    if (std::regex_match(line, sample)) ++samples;
    pos = end + 1;
  }
  EXPECT_EQ(samples, records.size());
  EXPECT_NE(text.find("device=\"GPU \\\"x\\\"\\\\y\""), std::string::npos);
  EXPECT_NE(text.find("# TYPE kvbench_dma_median_gbps gauge"), std::string::npos);
  EXPECT_EQ(prometheus_label_value("a\nb"), "a\\nb");
}

// A link ceiling nobody knows (host backend: 0) has no series: 0 GB/s would read as a dead link.
TEST(Prometheus, UnknownLinkCeilingIsLeftOutAKnownOneIsPerDevice) {
  auto records = dma_records_from_json(host_profile(), "p.json");
  ASSERT_FALSE(records.empty());
  for (auto& r : records) r.device.link_ceiling_gbps = 0;
  EXPECT_EQ(dma_prometheus(records).find("kvbench_dma_link_ceiling_gbps{"), std::string::npos);
  records.front().device.link_ceiling_gbps = 63.0;
  const auto text = dma_prometheus(records);
  EXPECT_NE(text.find("kvbench_dma_link_ceiling_gbps{"), std::string::npos);
  EXPECT_NE(text.find("} 63\n"), std::string::npos);
}

}  // namespace
}  // namespace kvb

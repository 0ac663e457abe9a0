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
#include "output/calibrate_documents.hpp"
#include "output/dma_output.hpp"
#include "output/dma_prometheus.hpp"
#include "report/html_escape.hpp"
#include "report/report_inputs.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

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

SizeRowView recommended_row(const std::string& model, const std::string& basis) {
  SizeRowView r;
  r.model = model;
  r.hardware = "h100";
  r.vllm_command = "vllm serve x \\\n    --kv-offloading-size 45";
  TierRecommendation v;
  v.basis = parse_recommendation_basis(basis, "test");
  if (v.simulated()) v.objective = v.decided_by = TierObjective::kTtftP99;
  v.workload = "chat-multi-turn";
  v.bound = TierBound::kKnee;
  v.why = "the knee";
  v.kv_offloading_size_gib = 45;
  v.floor_gib = 8;
  v.cap_gib = 143;
  if (basis == "simulation") {
    for (double gib : {0.0, 9.0, 45.0, 143.0}) {
      TierCurvePoint p;
      p.kv_offloading_size_gib = gib;
      p.gain = gib / 200;
      v.curve.push_back(p);
    }
  }
  r.recommendation = v;
  return r;
}

TEST(RecommendationSection, FirstLinesStateTheSizeTheBasisTheCommandAndTheMarkedCurve) {
  const std::vector<SizeRowView> rows{recommended_row("rule-model", "rule"),
                                      recommended_row("<b>sim</b>", "simulation")};
  ReportInputs in;
  in.sizings = rows;
  const auto html = report_html(in, ReportContext{"t", "now", "host", "test"});
  const auto rec = html.find("<section id=\"recommendation\">");
  ASSERT_NE(rec, std::string::npos);
  EXPECT_LT(rec, html.find("id=\"glance\""));  // before everything else
  const auto section = html.substr(rec, html.find("</section>", rec) - rec);
  // The simulated recommendation wins over the rule's, and its model name is escaped.
  EXPECT_NE(section.find("--kv-offloading-size 45"), std::string::npos);
  EXPECT_NE(section.find("simulation of chat-multi-turn"), std::string::npos);
  EXPECT_NE(section.find("&lt;b&gt;sim&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(section.find("<b>sim"), std::string::npos);
  EXPECT_NE(section.find("<pre>"), std::string::npos);  // the command, not folded in <details>
  EXPECT_EQ(section.find("<details"), std::string::npos);
  for (const char* marker : {"recommended 45 GiB", "vLLM floor 8 GiB", "DRAM cap 143 GiB"}) {
    EXPECT_NE(section.find(marker), std::string::npos) << marker;
  }
}

// size --trace: the counted curve is drawn beside the simulated hits, and its 200 sizes do not
// become 200 tick labels (only the simulated sizes are ticked).
TEST(RecommendationSection, TraceCurveDrawnBesideTheSimulatedHits) {
  auto row = recommended_row("m", "simulation");
  for (int i = 1; i <= 50; ++i) row.recommendation->trace_curve.emplace_back(i * 2.7, i / 100.0);
  const auto html = recommendation_section_html({row});
  EXPECT_NE(html.find("trace miss-ratio curve (counted)"), std::string::npos);
  EXPECT_NE(html.find("GPU + CPU-tier hits (simulated)"), std::string::npos);
  EXPECT_EQ(html.find(">2.7</text>"), std::string::npos);  // a curve size: no tick label
  EXPECT_NE(html.find(">143</text>"), std::string::npos);  // a simulated size: ticked
  // The simulated basis states how far the simulator is from real vLLM (or that it was not scored).
  EXPECT_NE(html.find("Expected error against real vLLM: not scored for this calibration"),
            std::string::npos);
  // Without a trace curve the hits chart is the CPU tier's alone.
  const auto plain = recommendation_section_html({recommended_row("m", "simulation")});
  EXPECT_EQ(plain.find("counted"), std::string::npos);
}

TEST(RecommendationSection, NoRecommendationNoSection) {
  SizeRowView r;
  r.model = "m";
  EXPECT_EQ(recommendation_section_html({r}), "");
}

DmaRecord node_record(const std::string& host, const std::string& device, Direction d, double gbps) {
  DmaRecord r;
  r.hostname = host;
  r.device.name = device;
  r.device.pci_bus_id = "0000:1b:00.0";
  r.verified = true;
  r.tcase.direction = d;
  r.tcase.method = Method::kCe;
  r.tcase.block_bytes = 2 << 20;
  r.id = r.tcase.id();
  r.median_gbps = gbps;
  return r;
}

TEST(FleetSection, FlagsTheSlowNodeAndTheOneThatFailedDoctor) {
  // Five nodes near 53 GB/s each way; node-c's h2d is 31 GB/s (a x8 link). Fleet median h2d 53.0,
  // MAD 0.1 -> band +-max(3 x 1.4826 x 0.1, 2% x 53.0) = +-1.06 GB/s: only node-c leaves it.
  std::vector<DmaRecord> dma;
  const std::vector<std::pair<std::string, double>> h2d{
      {"node-a", 53.0}, {"node-b", 53.1}, {"node-c", 31.0}, {"node-d", 52.9}, {"node-e", 53.0}};
  for (const auto& [host, gbps] : h2d) {
    dma.push_back(node_record(host, "H100 <b>x</b>", Direction::kH2D, gbps));
    dma.push_back(node_record(host, "H100 <b>x</b>", Direction::kD2H, 52.0));
  }
  const std::vector<DoctorView> doctors{{"node-e", {"shm"}, 0}};
  const auto rows = fleet_rows(dma, doctors);
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) {
    const bool expected = r.hostname == "node-c" || r.hostname == "node-e";
    EXPECT_EQ(r.outlier, expected) << r.hostname;
    if (r.hostname == "node-c") {
      ASSERT_EQ(r.outside_band.size(), 1u);
      EXPECT_NE(r.worst_case.find("31.0 GB/s vs fleet median 53.0"), std::string::npos) << r.worst_case;
    }
  }
  ReportInputs in;
  in.dma = dma;
  in.doctors = doctors;
  const auto html = report_html(in, ReportContext{"t", "now", "host", "test"});
  const auto fleet = html.substr(html.find("<section id=\"fleet\">"));
  EXPECT_EQ(count_of(fleet.substr(0, fleet.find("</section>")), "<td><strong>outlier</strong></td>"), 2u);
  EXPECT_NE(html.find("H100 &lt;b&gt;x&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("H100 <b>x</b>"), std::string::npos);
}

TEST(FleetSection, OneNodeIsNoFleet) {
  EXPECT_EQ(fleet_section_html({node_record("solo", "H100", Direction::kH2D, 53)}, {}), "");
}

// A calibrate result (kvbench/calibrate/v1) gets its own section, the device name escaped, each
// point's forward and the fitted error computed from it.
TEST(ReportPage, CalibrationSectionFromACalibrateResult) {
  CalibrationResult c;
  c.device = "<b>GPU</b>";
  c.runtime = "cuda 13.0, cuBLAS 13.0.0";
  c.model = "llama-3.1-8b";
  c.hw = "h100";
  c.fitted.compute_efficiency = 0.6;
  c.fitted.memory_efficiency = 0.8;
  c.reference.compute_efficiency = 0.54;
  c.reference.memory_efficiency = 0.7;
  c.peak_tflops = 989;  // H100 SXM dense BF16; a calibrate result always carries its peaks
  c.hbm_peak_gbps = 3350;
  c.hbm_copy_gbps = 2900;
  CalibrationPoint p;
  p.regime = "prefill";
  p.tokens = 2048;
  p.forward_s = 0.050;
  p.predicted_s = 0.055;  // +10.0%
  p.compute_efficiency = 0.6;
  p.memory_efficiency = 0.1;
  p.bound = "compute";
  c.points.push_back(p);
  ReportInputs in;
  add_report_document(in, calibration_json(c), "cal.json");
  const auto html = report_html(in, ReportContext{"t", "now", "host", "test"});
  EXPECT_NE(html.find("<section id=\"calibrate\">"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;GPU&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>GPU</b>"), std::string::npos);
  EXPECT_NE(html.find("+10.0%"), std::string::npos);
  // No calibrate result, no section (it is optional).
  EXPECT_EQ(report_html(ReportInputs{}, ReportContext{"t", "now", "host", "test"}).find("id=\"calibrate\""),
            std::string::npos);
}

}  // namespace
}  // namespace kvb

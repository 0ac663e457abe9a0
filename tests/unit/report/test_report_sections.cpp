// kvbench report's sections from result documents: the recommendation (its first lines, the trace
// curve), the fleet's outliers, and a calibrate result.
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

namespace kvb {
namespace {

using test::count_of;

Sizing recommended_row(const std::string& model, const std::string& basis) {
  Sizing r;
  r.server.model = model;
  r.server.hardware = "h100";
  r.vllm_command = "vllm serve x \\\n    --kv-offloading-size 45";
  TierRecommendation v;
  v.basis = parse_recommendation_basis(basis, "test");
  if (v.simulated()) v.objective = v.decided_by = TierObjective::kTtftP99;
  v.workload = "chat-multi-turn";
  v.bound = TierBound::kKnee;
  v.verdict = WordedVerdict{"the knee"};
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
  r.offload.emplace().recommendation = v;
  return r;
}

TEST(RecommendationSection, FirstLinesStateTheSizeTheBasisTheCommandAndTheMarkedCurve) {
  const std::vector<Sizing> rows{recommended_row("rule-model", "rule"),
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
  for (int i = 1; i <= 50; ++i) row.offload->recommendation.trace_curve.emplace_back(i * 2.7, i / 100.0);
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
  Sizing r;  // no plan: its weights do not fit
  r.server.model = "m";
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
  c.server.model = "llama-3.1-8b";
  c.server.hardware = "h100";
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

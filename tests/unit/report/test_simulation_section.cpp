// The report's simulate section words a read-back simulate document's notes and GPU blocks' origin
// as simulate's text words the live run: the document holds facts, not sentences (issue 54 §2).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "output/simulate/sim_document.hpp"
#include "output/simulate/sim_output.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_json.hpp"
#include "sim/sweep.hpp"

namespace kvb {
namespace {

// The live text's lines that state where the GPU blocks came from and what the run approximates.
std::vector<std::string> stated_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Note: ", 0) == 0 || line.rfind("GPU KV blocks: ", 0) == 0) out.push_back(line);
  }
  return out;
}

TEST(SimulationSection, AReadBackDocumentsNotesReadAsTheLiveRunsText) {
  // Two pipeline stages of two ranks, an LMCache tier, an unstated context and a newer vLLM: five
  // kinds of note, three of them with fields a lost figure would change the words of.
  const auto scenario = parse_scenario(R"(
model: llama-3.1-8b
hardware: h100
tensor-parallel-size: 2
pipeline-parallel-size: 2
kv-offloading-size: 8
kv-offloading-backend: lmcache
vllm-version: "0.40"
workload: {requests: 4, arrival: {process: fixed, rate: 4}, prompt: 64, output: 4}
)",
                                       "notes.yaml");
  const auto run = run_sweep(scenario, {}, std::nullopt, {});
  const auto live = stated_lines(simulate_text(run));
  ASSERT_GE(live.size(), 5u) << simulate_text(run);  // the GPU blocks' line and four notes at least
  const auto written = nlohmann::json::parse(simulate_json(run).dump());
  for (const auto& n : written.at("notes")) EXPECT_TRUE(n.contains("kind")) << n.dump();  // facts
  ReportInputs in;
  add_report_document(in, written, "sim.json");
  const auto html = simulation_section_html(in.simulations);
  for (const auto& line : live) EXPECT_NE(html.find(html_escape(line)), std::string::npos) << line;
  std::size_t notes_in_report = 0;
  for (auto at = html.find("<li>Note: "); at != std::string::npos; at = html.find("<li>Note: ", at + 1)) {
    ++notes_in_report;
  }
  EXPECT_EQ(notes_in_report, live.size() - 1);  // each note once, none more
}

}  // namespace
}  // namespace kvb

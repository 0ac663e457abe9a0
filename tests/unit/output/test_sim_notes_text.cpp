// A simulation's notes are facts (sim/sim_notes.hpp) worded once (output/simulate/sim_notes_text).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "output/simulate/sim_notes_text.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"

namespace kvb {
namespace {

TEST(SimNotesText, TheKernelsSlowdownIsStatedOnlyWhenMeasured) {
  EXPECT_EQ(
      sim_note_text(KernelSlowdownNote{
          .slowdown = 1.55, .origin = SlowdownOrigin{.hardware = "", .file = "h200.json", .records = 3}}),
      "link-method kernel: engine steps that overlap a transfer run 1.55x slower, the copy kernel's SMs "
      "taken from the model (h200.json: median of 3 --with-compute records)");
  EXPECT_EQ(
      sim_note_text(KernelSlowdownNote{
          .slowdown = 1.2, .origin = SlowdownOrigin{.hardware = "h200", .file = "", .records = 0}}),
      "link-method kernel: engine steps that overlap a transfer run 1.20x slower, the copy kernel's SMs "
      "taken from the model (hardware table (h200): kvbench dma --with-compute)");
  EXPECT_NE(sim_note_text(KernelSlowdownNote{.slowdown = 1.0, .origin = std::nullopt})
                .find("is unknown for this link"),
            std::string::npos);
}

TEST(SimNotesText, TensorParallelSaysScoredOrNotForItsRanks) {
  EXPECT_NE(sim_note_text(TensorParallelNote{.fabric_known = true, .scored = false, .ranks = 8})
                .find("no real vLLM run at 8 ranks on this GPU has been scored"),
            std::string::npos);
  EXPECT_NE(sim_note_text(TensorParallelNote{.fabric_known = true, .scored = true, .ranks = 4})
                .find("scored with the rest of the time model on real vLLM runs at 4 ranks"),
            std::string::npos);
  EXPECT_EQ(sim_note_text(TensorParallelNote{.fabric_known = false, .scored = false, .ranks = 2}),
            "tensor-parallel communication is not in the time model (the GPU fabric is unknown)");
}

TEST(SimNotesText, AnLmcacheTierOnPipelineStagesNotesBoth) {
  const auto s = parse_scenario(R"(
model: llama-3.1-8b
hardware: h100
pipeline-parallel-size: 2
kv-offloading-size: 16
kv-offloading-backend: lmcache
workload: {requests: 1, arrival: {process: fixed, rate: 1}}
)",
                                "notes.yaml");
  const auto setup = prepare_simulation(s, std::nullopt);
  const auto has = [&](auto fact) {
    return std::any_of(setup.notes.begin(), setup.notes.end(),
                       [](const SimNote& n) { return std::holds_alternative<decltype(fact)>(n); });
  };
  EXPECT_TRUE(has(LmcacheInStepNote{}));
  EXPECT_TRUE(has(PipelineNote{}));
  EXPECT_FALSE(has(FabricSharedNote{}));  // the H100 has NVLink
  EXPECT_FALSE(has(SimpleAsNativeNote{}));
}

// The Simple connector runs as the native tier in the simulator, and the run says so.
TEST(SimNotesText, TheSimpleConnectorSaysItRunsAsTheNativeTier) {
  const auto s = parse_scenario(R"(
model: llama-3.1-8b
hardware: h100
kv-offloading-size: 16
kv-offloading-backend: simple
workload: {requests: 1, arrival: {process: fixed, rate: 1}}
)",
                                "notes.yaml");
  const auto setup = prepare_simulation(s, std::nullopt);
  const auto it = std::find_if(setup.notes.begin(), setup.notes.end(), [](const SimNote& n) {
    return std::holds_alternative<SimpleAsNativeNote>(n);
  });
  ASSERT_NE(it, setup.notes.end());
  EXPECT_NE(sim_note_text(*it).find("lazy offload"), std::string::npos);
}

}  // namespace
}  // namespace kvb

// What `vllm serve` takes for --max-num-batched-tokens and --max-num-seqs when a server does not
// say (vllm/engine/arg_utils.py, get_batch_defaults): by the GPU's total memory and name.
#include <gtest/gtest.h>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "server/serve_settings.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "size/sizing_inputs.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

BatchDefaults defaults(const std::string& hw) { return vllm_serve_batch_defaults(resolve_hardware(hw)); }

// An H100 reports 79.19 GiB and an H200 139.8 GiB (>= 70): 8,192 tokens and 1,024 sequences. An
// L40S reports 44.39 GiB and an L4 22 GiB: 2,048 and 256. Both A100s (40 and 80 GB) are left out
// of the large figures by name, whatever their memory.
TEST(ServeSettings, VllmBatchDefaultsFollowTheGpusMemoryAndName) {
  for (const char* hw : {"h100", "h200", "mi300x"}) {
    EXPECT_EQ(defaults(hw).max_num_batched_tokens, 8192) << hw;
    EXPECT_EQ(defaults(hw).max_num_seqs, 1024) << hw;
  }
  for (const char* hw : {"l40s", "l4", "a100-40gb", "a100-80gb", "a100-80gb-pcie"}) {
    EXPECT_EQ(defaults(hw).max_num_batched_tokens, 2048) << hw;
    EXPECT_EQ(defaults(hw).max_num_seqs, 256) << hw;
  }
}

// A server that names neither flag gets its GPU's figures; one that names them keeps its own.
TEST(ServeSettings, AScenarioWithoutBatchKeysTakesTheGpusDefaultsAndOneWithThemKeepsThem) {
  const char* yaml = R"(
model: qwen3-8b
hardware: l40s
max-model-len: 8192
workload: {requests: 1, arrival: {process: fixed, rate: 1}}
)";
  const auto setup = prepare_simulation(parse_scenario(yaml, "test.yaml"), std::nullopt);
  EXPECT_EQ(setup.server.max_num_batched_tokens, 2048);
  EXPECT_EQ(setup.server.max_num_seqs, 256);
  const auto given = prepare_simulation(
      parse_scenario(std::string(yaml) + "max-num-batched-tokens: 4096\nmax-num-seqs: 64\n", "test.yaml"),
      std::nullopt);
  EXPECT_EQ(given.server.max_num_batched_tokens, 4096);
  EXPECT_EQ(given.server.max_num_seqs, 64);
  const auto fit =
      size_fit(make_sizing_inputs(test::model("llama-3.1-8b"), resolve_hardware("h100"), ServeSettings{}));
  EXPECT_EQ(fit.server.max_num_batched_tokens, 8192);
  EXPECT_EQ(fit.server.max_num_seqs, 1024);
}

}  // namespace
}  // namespace kvb

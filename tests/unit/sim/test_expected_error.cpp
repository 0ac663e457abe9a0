// The simulator's expected error against real vLLM is stated only for the class of servers it was
// scored on (scenarios/fidelity/h100.yaml: dense models, bf16 weights, one rank of an H100); any
// other server is "not scored for" what differs, with no figure borrowed from the scored class.
#include <gtest/gtest.h>

#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"

namespace kvb {
namespace {

std::string expected_error(const std::string& server) {
  const auto s = parse_scenario(server + "workload:\n  requests: 1\n  arrival: {process: fixed, rate: 1}\n",
                                "class.yaml");
  return expected_error_for(prepare_simulation(s, std::nullopt));
}

TEST(ExpectedError, TheScoredClassGetsTheScoredFigures) {
  const auto e = expected_error("model: llama-3.1-8b\nhardware: h100\nmax-model-len: 8192\n");
  EXPECT_EQ(e.rfind("TTFT mean within", 0), 0u) << e;
}

TEST(ExpectedError, OtherClassesAreNotScoredAndGetNoFigure) {
  const auto moe = expected_error("model: gpt-oss-120b\nhardware: h100\nmax-model-len: 8192\n");
  EXPECT_EQ(moe.rfind("not scored for mixture-of-experts models, mxfp4 weights:", 0), 0u) << moe;
  const auto fp8 =
      expected_error("model: llama-3.1-8b\nhardware: h100\nmax-model-len: 8192\nquantization: fp8\n");
  EXPECT_EQ(fp8.rfind("not scored for fp8 weights:", 0), 0u) << fp8;
  const auto tp =
      expected_error("model: llama-3.1-70b\nhardware: h100\ntensor-parallel-size: 4\nmax-model-len: 8192\n");
  EXPECT_EQ(tp.rfind("not scored for 4 ranks (TP x PP):", 0), 0u) << tp;
  for (const auto& e : {moe, fp8, tp}) EXPECT_EQ(e.find("within"), std::string::npos) << e;
}

TEST(ExpectedError, AFleetSaysItsRoutingIsScoredOnlyOnTheTiersChange) {
  const auto e = expected_error("model: llama-3.1-8b\nhardware: h100\nmax-model-len: 8192\nreplicas: 4\n");
  EXPECT_EQ(e.rfind("TTFT mean within", 0), 0u) << e;
  EXPECT_NE(e.find("per engine only: the fleet's routing is scored only on the CPU tier's change"),
            std::string::npos)
      << e;
}

TEST(ExpectedError, AnUnscoredGpuHasNone) {
  EXPECT_EQ(expected_error("model: llama-3.1-8b\nhardware: b200\nmax-model-len: 8192\n"), "");
}

}  // namespace
}  // namespace kvb

// The router's choice on hand-built replica states, each expected value worked out by hand from
// the rule it follows (sim/router.hpp).
#include <gtest/gtest.h>

#include <set>

#include "core/errors.hpp"
#include "fleet/fleet_spec.hpp"
#include "fleet/router.hpp"

namespace kvb {
namespace {

ReplicaState state(std::int64_t in_flight, std::int64_t waiting, double usage, std::int64_t gpu = 0,
                   std::int64_t cpu = 0) {
  return ReplicaState{in_flight, waiting, usage, gpu, cpu};
}

TEST(Router, RoundRobinTakesReplicasInTurn) {
  Router r(RouterKind::kRoundRobin);
  const std::vector<ReplicaState> three(3);
  std::vector<int> picks;
  for (int i = 0; i < 7; ++i) picks.push_back(r.choose({}, three));
  EXPECT_EQ(picks, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(Router, LeastLoadedTakesFewestInFlightFirstOnTies) {
  Router r(RouterKind::kLeastLoaded);
  EXPECT_EQ(r.choose({}, {state(3, 0, 0), state(1, 9, 0.9), state(2, 0, 0)}), 1);
  EXPECT_EQ(r.choose({}, {state(1, 0, 0), state(1, 0, 0), state(2, 0, 0)}), 0);
}

TEST(Router, PrefixScoreWeighsCpuBlocksAndTruncates) {
  // 10 prompt blocks: all on the GPU 10/10; 5 GPU + 5 CPU floor(5 + 4.0) = 9 -> 0.9; 10 CPU only
  // floor(8.0) = 8 -> 0.8; 3 CPU only floor(2.4) = 2 -> 0.2; nothing -> 0.
  const auto s = Router::prefix_scores({10, 0},
                                       {state(0, 0, 0, 10, 0), state(0, 0, 0, 5, 5), state(0, 0, 0, 0, 10),
                                        state(0, 0, 0, 0, 3), state(0, 0, 0)},
                                       0.8);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_DOUBLE_EQ(s[0], 1.0);
  EXPECT_DOUBLE_EQ(s[1], 0.9);
  EXPECT_DOUBLE_EQ(s[2], 0.8);
  EXPECT_DOUBLE_EQ(s[3], 0.2);
  EXPECT_DOUBLE_EQ(s[4], 0.0);
}

TEST(Router, QueueScoreIsMinMaxNormalisedAndOneWhenAllEqual) {
  const auto s = Router::queue_scores({state(0, 0, 0), state(0, 5, 0), state(0, 10, 0)});
  EXPECT_DOUBLE_EQ(s[0], 1.0);
  EXPECT_DOUBLE_EQ(s[1], 0.5);
  EXPECT_DOUBLE_EQ(s[2], 0.0);
  for (const double v : Router::queue_scores({state(0, 4, 0), state(0, 4, 0)})) EXPECT_DOUBLE_EQ(v, 1.0);
}

TEST(Router, KvUsageScoreIsOneMinusUsage) {
  const auto s = Router::kv_usage_scores({state(0, 0, 0.2), state(0, 0, 0.9)});
  EXPECT_DOUBLE_EQ(s[0], 0.8);
  EXPECT_NEAR(s[1], 0.1, 1e-12);
}

TEST(Router, PrefixAwareTakesTheBestWeightedSum) {
  // Weights prefix 3, queue 2, KV usage 2; 10 prompt blocks.
  //   A: 9 GPU blocks (0.9), 4 waiting (queue 0), usage 0.5 -> 2.7 + 0 + 1.0 = 3.7
  //   B: none (0), 0 waiting (1), usage 0.2                  -> 0 + 2 + 1.6  = 3.6
  //   C: 5 GPU blocks (0.5), 2 waiting (0.5), usage 0.3      -> 1.5 + 1 + 1.4 = 3.9
  Router r(RouterKind::kPrefixAware);
  EXPECT_TRUE(r.reads_prefixes());
  EXPECT_EQ(r.choose({10, 0}, {state(0, 4, 0.5, 9), state(0, 0, 0.2), state(0, 2, 0.3, 5)}), 2);
  // Without C, A's prefix outweighs B's empty queue.
  EXPECT_EQ(r.choose({10, 0}, {state(0, 4, 0.5, 9), state(0, 0, 0.2)}), 0);
}

TEST(Router, PrefixAwareBreaksTiesAtRandomButReproducibly) {
  const std::vector<ReplicaState> equal(4);
  Router a(RouterKind::kPrefixAware, 42), b(RouterKind::kPrefixAware, 42);
  std::set<int> seen;
  for (int i = 0; i < 64; ++i) {
    const int pick = a.choose({8, 0}, equal);
    EXPECT_EQ(pick, b.choose({8, 0}, equal));
    seen.insert(pick);
  }
  EXPECT_EQ(seen.size(), 4u);  // 64 draws of 4: missing one has odds (3/4)^64, about 1e-8
}

TEST(Router, SessionSticksToItsFirstReplicaUntilForgotten) {
  Router r(RouterKind::kSession);
  EXPECT_EQ(r.choose({1, 7}, {state(2, 0, 0), state(0, 0, 0)}), 1);  // first turn: the least loaded
  EXPECT_EQ(r.choose({1, 7}, {state(0, 0, 0), state(5, 0, 0)}), 1);  // later turns stay
  EXPECT_EQ(r.choose({1, 8}, {state(0, 0, 0), state(5, 0, 0)}), 0);  // another conversation
  r.forget(7);
  EXPECT_EQ(r.choose({1, 7}, {state(0, 0, 0), state(5, 0, 0)}), 0);
}

TEST(Router, AConversationKeyIsItsFirstTwoBlocks) {
  EXPECT_EQ(conversation_key({1, 2, 3}), conversation_key({1, 2, 9}));  // same head, other tail
  EXPECT_NE(conversation_key({1, 2, 3}), conversation_key({1, 4, 3}));
  EXPECT_NE(conversation_key({1}), conversation_key({1, 2}));
}

TEST(Router, OneReplicaIsAlwaysChosen) {
  for (const auto kind :
       {RouterKind::kRoundRobin, RouterKind::kLeastLoaded, RouterKind::kPrefixAware, RouterKind::kSession}) {
    Router r(kind);
    EXPECT_EQ(r.choose({4, 1}, {state(9, 9, 1.0)}), 0);
  }
}

TEST(FleetSpec, NamesRoundTripAndBadInputIsNamed) {
  for (const auto& name : router_names()) EXPECT_EQ(to_string(parse_router(name, "--router")), name);
  try {
    parse_router("random", "--router");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--router: unknown router 'random'; expected round-robin"),
              std::string::npos);
  }
  EXPECT_THROW(checked_replicas(0, "--replicas"), UsageError);
  EXPECT_THROW(checked_replicas(kMaxReplicas + 1, "--replicas"), UsageError);
  EXPECT_EQ(checked_replicas(8, "--replicas"), 8);
}

}  // namespace
}  // namespace kvb

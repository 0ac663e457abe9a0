// A trace split over a fleet's replicas (trace/fleet_routing.hpp): nothing lost in the split, and
// each router's split checked against what it exists for.
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/fleet_routing.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_json.hpp"

namespace kvb {
namespace {

std::string mooncake() {
  return std::string(KVBENCH_TEST_DATA) + "/traces/mooncake-conversation-head2000.jsonl";
}

TraceAnalysis split(RouterKind router, int replicas = 4) {
  return analyze_trace(mooncake(), TraceOptions{}, 24, FleetSpec{replicas, router});
}

TEST(TraceFleet, TheSplitLosesNoRequestAndNoToken) {
  const auto a = split(RouterKind::kPrefixAware);
  ASSERT_EQ(a.replicas.size(), 4u);
  std::int64_t requests = 0;
  double tokens = 0;
  for (const auto& r : a.replicas) {
    requests += r.requests;
    tokens += r.prompt_tokens;
    EXPECT_EQ(r.curve.size(), a.curve.size());
  }
  EXPECT_EQ(requests, a.requests);
  EXPECT_DOUBLE_EQ(tokens, a.prompt.mean * static_cast<double>(a.requests));
}

TEST(TraceFleet, RoundRobinSendsEachReplicaEveryFourthRequest) {
  for (const auto& r : split(RouterKind::kRoundRobin).replicas) EXPECT_EQ(r.requests, 500);  // 2,000 / 4
}

TEST(TraceFleet, SplittingNeverServesMoreThanOneUnboundedCache) {
  // A block a replica serves from an unbounded cache was sent to it before, so the whole trace had
  // it before too (with its prefix): the replicas' hits are a subset of one unbounded cache's.
  for (const auto router : {RouterKind::kRoundRobin, RouterKind::kPrefixAware, RouterKind::kSession}) {
    const auto a = split(router);
    double hit = 0, tokens = 0;
    for (const auto& r : a.replicas) {
      hit += r.unbounded_prefix_hit_rate * r.prompt_tokens;
      tokens += r.prompt_tokens;
      // The largest capacity holds every block the replica was sent: its curve ends at its unbounded rate.
      EXPECT_NEAR(r.curve.back().prefix_hit_rate, r.unbounded_prefix_hit_rate, 1e-12);
    }
    EXPECT_LE(hit / tokens, a.unbounded_prefix_hit_rate + 1e-12);
  }
}

TEST(TraceFleet, PrefixAwareAndSessionRoutingKeepMoreReuseThanRoundRobin) {
  const auto unbounded = [](const TraceAnalysis& a) {
    double hit = 0, tokens = 0;
    for (const auto& r : a.replicas) {
      hit += r.unbounded_prefix_hit_rate * r.prompt_tokens;
      tokens += r.prompt_tokens;
    }
    return hit / tokens;
  };
  const double rr = unbounded(split(RouterKind::kRoundRobin));
  EXPECT_GT(unbounded(split(RouterKind::kPrefixAware)), rr + 0.05);
  EXPECT_GT(unbounded(split(RouterKind::kSession)), rr + 0.05);
}

TEST(TraceFleet, LeastLoadedNeedsServiceTimesAndIsRefused) {
  EXPECT_THROW(split(RouterKind::kLeastLoaded), UsageError);
  EXPECT_NO_THROW(split(RouterKind::kLeastLoaded, 1));  // one replica: no routing at all
}

// The fleet block trace writes is read back whole (issue 54 §2): written again, the same bytes; a
// block whose replica count and per-replica entries disagree is refused, naming the file.
TEST(TraceFleet, TheFleetBlockRoundTripsByteForByte) {
  const auto a = split(RouterKind::kPrefixAware);
  TraceKvCost cost;
  cost.server.model = "llama-3.1-8b";
  cost.server.hardware = "h100";
  cost.kv_bytes_per_token = 131072;
  const auto doc = trace_json(a, cost);
  const auto back = trace_document_from_json(doc, "trace.json");
  EXPECT_EQ(back.analysis.fleet, a.fleet);
  ASSERT_EQ(back.analysis.replicas.size(), 4u);
  EXPECT_EQ(back.analysis.replicas[2].requests, a.replicas[2].requests);
  EXPECT_EQ(trace_json(back.analysis, back.cost).dump(), doc.dump());
  auto bad = doc;
  bad["fleet"]["replicas"] = 5;
  EXPECT_THROW(trace_document_from_json(bad, "bad.json"), UsageError);
}

}  // namespace
}  // namespace kvb

// The router's load index against the scan it replaces: on random changes (a fixed seed) its
// least loaded replica is always the scan's first minimum, and a router picks the same replicas
// from it as from the scanned states.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/rng.hpp"
#include "fleet/load_index.hpp"
#include "fleet/router.hpp"

namespace kvb {
namespace {

int scan_least_loaded(const std::vector<std::int64_t>& load) {
  return static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
}

TEST(LoadIndex, FewestFirstLowestIndexOnTies) {
  LoadIndex index(5);
  EXPECT_EQ(index.least_loaded(), 0);  // all equal: the first
  index.add(0, 2);
  index.add(1, 1);
  EXPECT_EQ(index.least_loaded(), 2);  // 2, 3 and 4 hold none: the lowest of them
  index.add(2, 1);
  index.add(3, 1);
  index.add(4, 1);
  EXPECT_EQ(index.least_loaded(), 1);  // 1..4 hold one each, 0 holds two
  index.add(0, -2);
  EXPECT_EQ(index.least_loaded(), 0);
  EXPECT_EQ(index.load(4), 1);
}

TEST(LoadIndex, AgreesWithAScanUnderRandomChanges) {
  for (const int replicas : {1, 2, 3, 7, 16, 33}) {
    LoadIndex index(replicas);
    std::vector<std::int64_t> load(static_cast<std::size_t>(replicas), 0);
    Rng rng(static_cast<std::uint64_t>(replicas) + 11);
    for (int step = 0; step < 20000; ++step) {
      const auto i = static_cast<int>(rng.below(static_cast<std::uint64_t>(replicas)));
      // Mostly +1/-1 as requests come and go, counts kept >= 0 so ties are frequent.
      const std::int64_t delta = load[static_cast<std::size_t>(i)] > 0 && rng.below(2) == 0 ? -1 : 1;
      index.add(i, delta);
      load[static_cast<std::size_t>(i)] += delta;
      ASSERT_EQ(index.least_loaded(), scan_least_loaded(load)) << replicas << " replicas, step " << step;
      ASSERT_EQ(index.load(i), load[static_cast<std::size_t>(i)]);
    }
  }
}

// Every router that reads only its own counts picks the same replica from the index as from the
// scanned states, request after request (the fleet simulation's results rest on it).
TEST(LoadIndex, RoutersPickAsFromScannedStates) {
  for (const auto kind : {RouterKind::kRoundRobin, RouterKind::kLeastLoaded, RouterKind::kSession}) {
    Router scanned(kind, 5), indexed(kind, 5);
    LoadIndex index(6);
    std::vector<ReplicaState> states(6);
    Rng rng(23);
    for (int step = 0; step < 5000; ++step) {
      const RoutedRequest r{static_cast<std::int64_t>(rng.below(50)), rng.below(40)};
      const int a = scanned.choose(r, states);
      ASSERT_EQ(a, indexed.choose(r, index)) << "step " << step;
      ++states[static_cast<std::size_t>(a)].in_flight;
      index.add(a, 1);
      const auto done = static_cast<std::size_t>(rng.below(6));  // a request answered somewhere
      if (states[done].in_flight > 0 && rng.below(2) == 0) {
        --states[done].in_flight;
        index.add(static_cast<int>(done), -1);
      }
      if (rng.below(10) == 0) {  // a conversation ends
        const auto affinity = rng.below(40);
        scanned.forget(affinity);
        indexed.forget(affinity);
      }
    }
  }
}

TEST(LoadIndex, PrefixRoutersNeedThePublishedState) {
  Router r(RouterKind::kPrefixAware);
  EXPECT_THROW(r.choose(RoutedRequest{}, LoadIndex(3)), std::logic_error);
}

}  // namespace
}  // namespace kvb

// The simulator's hot paths, and whole runs to show how the cost grows with requests and with
// GPU blocks. Run: build/tests/bench/kvbench_bench_sim
#include <benchmark/benchmark.h>

#include "core/rng.hpp"
#include "fleet/fleet_spec.hpp"
#include "sim/event_queue.hpp"
#include "sim/kv_block_manager.hpp"
#include "sim/offload_tier.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"

namespace kvb {
namespace {

void BM_EventQueuePushPop(benchmark::State& state) {
  const auto n = state.range(0);
  Rng rng(1);
  std::vector<SimTime> times;
  for (std::int64_t i = 0; i < n; ++i) times.push_back(sim_time_at(rng.uniform() * 1000));
  for (auto _ : state) {
    EventQueue q;
    for (std::int64_t i = 0; i < n; ++i) q.push(times[static_cast<std::size_t>(i)], EventKind::kArrival, i);
    SimDuration sum{};
    while (!q.empty()) sum += q.pop().time.time_since_epoch();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_EventQueuePushPop)->Arg(1 << 10)->Arg(1 << 16);

std::vector<std::uint64_t> chain(std::uint64_t seed, std::int64_t blocks) {
  std::vector<std::uint64_t> h;
  std::uint64_t x = seed;
  for (std::int64_t i = 0; i < blocks; ++i) h.push_back(x = hash_mix(x, static_cast<std::uint64_t>(i)));
  return h;
}

// A request of `blocks` blocks: allocate, register in the prefix cache, release.
void BM_BlockManagerRequestCycle(benchmark::State& state) {
  const auto blocks = state.range(0);
  KvBlockManager kv(65536, 16, true);
  std::uint64_t seed = 0;
  for (auto _ : state) {
    SimRequest r;
    r.block_hashes = chain(++seed, blocks);
    kv.allocate(r, {}, blocks * 16);
    kv.cache_blocks(r, blocks);
    kv.release(r);
  }
  state.SetItemsProcessed(state.iterations() * blocks);
}
BENCHMARK(BM_BlockManagerRequestCycle)->Arg(64)->Arg(1024);

void BM_PrefixLookup(benchmark::State& state) {
  const auto blocks = state.range(0);
  KvBlockManager kv(65536, 16, true);
  SimRequest r;
  r.block_hashes = chain(7, blocks);
  kv.allocate(r, {}, blocks * 16);
  kv.cache_blocks(r, blocks);
  for (auto _ : state) benchmark::DoNotOptimize(kv.find_prefix(r.block_hashes, blocks).size());
  state.SetItemsProcessed(state.iterations() * blocks);
}
BENCHMARK(BM_PrefixLookup)->Arg(64)->Arg(4096);

void BM_OffloadTierStoreAndHit(benchmark::State& state, kvb::EvictionKind policy) {
  OffloadTier tier(16384, policy, 1);
  Rng rng(3);
  for (auto _ : state) {
    const std::uint64_t h = rng.below(32768) + 1;  // twice the capacity: about half hit
    if (tier.ready(h)) {
      tier.pin_for_load({h});
      tier.unpin({h});
    } else {
      tier.store_done(tier.reserve(tier.select_for_store({h})));
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_OffloadTierStoreAndHit, lru, kvb::EvictionKind::kLru);
BENCHMARK_CAPTURE(BM_OffloadTierStoreAndHit, arc, kvb::EvictionKind::kArc);

// Whole simulations of the shipped chat scenario with a 64 GiB CPU tier.
void BM_SimulateChatRequests(benchmark::State& state) {
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", std::to_string(state.range(0)), "bench");
  s = with_override(s, "kv-offloading-size", "64", "bench");
  const auto setup = prepare_simulation(s, std::nullopt);
  std::int64_t steps = 0;
  for (auto _ : state) steps = run_simulation(setup).steps;
  state.counters["steps"] = static_cast<double>(steps);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_SimulateChatRequests)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// The same 10,000 requests against GPU pools of different sizes.
void BM_SimulateChatGpuBlocks(benchmark::State& state) {
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", "10000", "bench");
  s = with_override(s, "kv-offloading-size", "64", "bench");
  s = with_override(s, "num-gpu-blocks-override", std::to_string(state.range(0)), "bench");
  const auto setup = prepare_simulation(s, std::nullopt);
  std::int64_t steps = 0;
  for (auto _ : state) steps = run_simulation(setup).steps;
  state.counters["steps"] = static_cast<double>(steps);
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_SimulateChatGpuBlocks)
    ->Arg(2048)
    ->Arg(8192)
    ->Arg(32768)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// A fleet on one event clock: replicas x requests of the chat scenario and no CPU tier, so the
// cost is the router's and the engines', not the tier's. "The same requests" (issue 57: a fleet
// should cost what its requests cost): 1 and 16 replicas simulate the same number of requests of
// the same scenario and seed, its session rate scaled with the replicas so that each replica sees
// about one engine's offered load (16 replicas at the 1-engine rate would idle, and each step would
// serve one or two requests: more steps per request, a different workload). 16/100000 against
// 1/100000 is the fleet's overhead; docs/simulate.md quotes these figures.
void BM_SimulateChatFleet(benchmark::State& state, kvb::RouterKind router) {
  const auto replicas = state.range(0);
  const auto requests = state.range(1);
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", std::to_string(requests), "bench");
  s = with_override(s, "workload.arrival.rate", std::to_string(0.5 * static_cast<double>(replicas)), "bench");
  s = with_fleet(s, FleetSpec{static_cast<int>(replicas), router});
  const auto setup = prepare_simulation(s, std::nullopt);
  std::int64_t steps = 0;
  for (auto _ : state) steps = run_simulation(setup).steps;
  state.counters["steps"] = static_cast<double>(steps);
  state.SetItemsProcessed(state.iterations() * requests);
}
BENCHMARK_CAPTURE(BM_SimulateChatFleet, round_robin, kvb::RouterKind::kRoundRobin)
    ->Args({1, 100000})
    ->Args({16, 100000})
    ->Args({16, 1000000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateChatFleet, prefix_aware, kvb::RouterKind::kPrefixAware)
    ->Args({16, 100000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The fleet's replicas without the fleet: 16 engines simulated one after another, each alone on
// 6,250 requests of the same scenario at one engine's rate (seeds 7 to 22), 100,000 in all. Each
// engine's block table and prefix index then stay in the core's cache for its whole run; in the
// fleet they are interleaved event by event, 16 pools' tables against one core's L2.
// BM_SimulateChatFleet/16/100000 minus this is what interleaving them costs (docs/simulate.md).
void BM_SimulateChatReplicasAlone(benchmark::State& state) {
  std::vector<SimulationSetup> engines;
  for (int i = 0; i < 16; ++i) {
    auto s = load_scenario("chat-multi-turn");
    s = with_override(s, "workload.requests", "6250", "bench");
    s = with_override(s, "seed", std::to_string(7 + i), "bench");
    engines.push_back(prepare_simulation(s, std::nullopt));
  }
  std::int64_t steps = 0;
  for (auto _ : state) {
    steps = 0;
    for (const auto& e : engines) steps += run_simulation(e).steps;
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(BM_SimulateChatReplicasAlone)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvb

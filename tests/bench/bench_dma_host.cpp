// The host backend's copy paths over a scattered KV block map: one memcpy per block (what `ce`
// does on the host), by block size, and what a whole measured case costs beyond its timed runs.
// Host memory only: no GPU link is involved.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "backend/backend_registry.hpp"
#include "dma/transfer_backend.hpp"
#include "dma/transfer_case.hpp"

namespace kvb {
namespace {

void BM_HostScatteredBlockCopy(benchmark::State& state) {
  TransferCase c;
  c.block_bytes = static_cast<std::uint64_t>(state.range(0));
  c.blocks = std::min<std::int64_t>(1000, (256 << 20) / state.range(0));
  c.gpu_pool_blocks = c.blocks * 2;
  c.host_pool_blocks = c.blocks * 2;
  const auto map = make_block_map(c.blocks, c.gpu_pool_blocks, c.host_pool_blocks, 1);
  const auto ops = copy_ops(c, map, Direction::kH2D);
  std::vector<unsigned char> src(host_pool_bytes(c), 1), dst(gpu_pool_bytes(c), 0);
  for (auto _ : state) {
    for (const auto& op : ops) std::memcpy(dst.data() + op.dst_offset, src.data() + op.src_offset, op.bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(c.bytes_per_direction()));
}
BENCHMARK(BM_HostScatteredBlockCopy)->Arg(4096)->Arg(65536)->Arg(2 << 20);

void BM_BlockMapAndCopyPlan(benchmark::State& state) {
  TransferCase c;
  c.block_bytes = 65536;
  c.blocks = state.range(0);
  c.layout = Layout::kPerLayer;
  c.layers = 32;
  c.gpu_pool_blocks = c.blocks * 4;
  c.host_pool_blocks = c.blocks * 4;
  for (auto _ : state) {
    const auto map = make_block_map(c.blocks, c.gpu_pool_blocks, c.host_pool_blocks, 1);
    benchmark::DoNotOptimize(copy_ops(c, map, Direction::kD2H).size());
  }
  state.SetItemsProcessed(state.iterations() * c.blocks);
}
BENCHMARK(BM_BlockMapAndCopyPlan)->Arg(1000)->Arg(4096);

// Issue 14's cost model: one whole measured case (plan, clear, warm-ups, timed runs, verification)
// on the host backend with its pools already built, as every case after a sweep's first. Counters:
// overhead = set-up + verification + bookkeeping over the case's timed work (target <= 10%), and
// the timed work's share of the case's wall time.
void BM_HostCaseOverhead(benchmark::State& state) {
  auto backend = make_host_backend();
  TransferCase c;
  c.block_bytes = static_cast<std::uint64_t>(state.range(0));
  c.direction = state.range(1) == 0   ? Direction::kH2D
                : state.range(1) == 1 ? Direction::kD2H
                                      : Direction::kBidir;
  c.blocks = std::min<std::int64_t>(1000, (64 << 20) / state.range(0));
  c.gpu_pool_blocks = c.blocks * 4;
  c.host_pool_blocks = c.blocks * 4;
  StoppingRule rule;                // the defaults `kvbench dma` runs with
  (void)backend->measure(c, rule);  // builds the pools
  double overhead = 0, timed = 0, wall = 0;
  for (auto _ : state) {
    const auto r = backend->measure(c, rule);
    if (!r.verified) state.SkipWithError("verification failed");
    overhead += r.case_s - r.loop_s - r.pool_setup_s;
    timed += r.timed_s;
    wall += r.case_s;
  }
  state.counters["overhead_of_timed"] = timed > 0 ? overhead / timed : 0;
  state.counters["timed_of_wall"] = wall > 0 ? timed / wall : 0;
}
BENCHMARK(BM_HostCaseOverhead)
    ->ArgsProduct({{4096, 65536, 2 << 20}, {0, 1, 2}})
    ->ArgNames({"block", "dir"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// Issue 24 §3: building a sweep's host pools (allocate, first touch, pattern the sources, clear the
// destinations) should take at most 0.5 s per GiB of pools. Counter: s_per_gib (four pools of
// --pool bytes each: device-side and host-side source and destination).
void BM_HostPoolSetup(benchmark::State& state) {
  const auto pool = static_cast<std::uint64_t>(state.range(0)) << 20;
  double setup = 0;
  for (auto _ : state) {
    auto backend = make_host_backend();
    TransferCase c;
    c.block_bytes = 2 << 20;
    c.blocks = 4;
    c.gpu_pool_blocks = static_cast<std::int64_t>(pool / c.block_bytes);
    c.host_pool_blocks = c.gpu_pool_blocks;
    StoppingRule rule;
    rule.min_seconds = 0;
    rule.max_seconds = 0.01;
    rule.min_samples = 1;
    rule.warmups = 0;
    setup += backend->measure(c, rule).pool_setup_s;
  }
  state.counters["s_per_gib"] =
      setup / static_cast<double>(state.iterations()) / (4.0 * static_cast<double>(pool) / (1 << 30));
}
BENCHMARK(BM_HostPoolSetup)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace kvb

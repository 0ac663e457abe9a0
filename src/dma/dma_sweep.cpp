#include "dma/dma_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/numa_binding.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "dma/block_sizes.hpp"

namespace kvb {

std::vector<TransferCase> plan_dma_cases(const DmaSweepSettings& o, bool gpu, std::vector<std::string>& notes) {
  const auto sizes = parse_block_sizes(o.block);
  std::vector<Method> methods;
  for (const auto& m : split(o.method, ',')) methods.push_back(parse_method(m, "--method"));
  std::vector<Direction> directions;
  for (const auto& d : split(o.direction, ',')) directions.push_back(parse_direction(d, "--direction"));
  const Layout layout = parse_layout(o.layout, "--layout");
  const HostMemKind host_mem = parse_host_mem(o.host_mem, "--host-mem");
  if (o.layers < 1 || o.layers > 1024) throw UsageError(fmt::format("--layers {}: expected 1 to 1024", o.layers));
  // Never accept a setting that would not be applied: the node must exist and be bindable.
  if (o.numa_node != -1) validate_numa_node(o.numa_node, "--numa-node");
  if (o.ctas < 0) throw UsageError(fmt::format("--ctas {}: expected 0 (all) or a positive count", o.ctas));
  const std::uint64_t pool = o.pool.empty() ? (gpu ? 8ULL << 30 : 256ULL << 20) : parse_bytes(o.pool, "--pool").bytes;
  const bool blocks_given = !o.blocks.empty();
  const std::int64_t want_blocks = blocks_given ? parse_positive_int(o.blocks, "--blocks") : 1000;
  std::vector<TransferCase> cases;
  for (const auto b : sizes) {
    const int frags = layout == Layout::kPerLayer ? o.layers : 1;
    if (b % 16 != 0 || (b / static_cast<std::uint64_t>(frags)) % 16 != 0 || b / static_cast<std::uint64_t>(frags) == 0) {
      throw UsageError(fmt::format("--block {}: expected a multiple of 16 bytes{} (16-byte copies)", b,
                                   frags > 1 ? fmt::format(" per layer fragment ({} layers)", frags) : ""));
    }
    if (b > pool) {
      throw UsageError(fmt::format("--block {} is larger than --pool {}; expected a block that fits the pool",
                                   format_bytes_binary(static_cast<double>(b)),
                                   format_bytes_binary(static_cast<double>(pool))));
    }
    const auto pool_blocks = static_cast<std::int64_t>(pool / b);
    std::int64_t blocks = want_blocks;
    if (blocks > pool_blocks) {
      if (blocks_given) {
        throw UsageError(fmt::format("--blocks {} of {} need {} but --pool is {}; expected fewer blocks or a larger "
                                     "--pool",
                                     blocks, format_bytes_binary(static_cast<double>(b)),
                                     format_bytes_binary(static_cast<double>(b) * static_cast<double>(blocks)),
                                     format_bytes_binary(static_cast<double>(pool))));
      }
      blocks = pool_blocks;
      notes.push_back(fmt::format("{} blocks: {} per transfer (the {} pool holds no more)",
                                  format_bytes_binary(static_cast<double>(b)), blocks,
                                  format_bytes_binary(static_cast<double>(pool))));
    }
    for (const auto d : directions) {
      for (const auto m : methods) {
        TransferCase c;
        c.direction = d;
        c.method = m;
        c.layout = layout;
        c.layers = frags;
        c.block_bytes = b;
        c.blocks = blocks;
        // Pools hold up to 4x the transfer so the block map scatters.
        c.gpu_pool_blocks = std::min(pool_blocks, 4 * blocks);
        c.host_pool_blocks = c.gpu_pool_blocks;
        c.host_mem = host_mem;
        c.numa_node = o.numa_node;
        c.ctas = o.ctas;
        c.seed = o.seed;
        c.with_compute = o.with_compute;
        cases.push_back(c);
      }
    }
  }
  return cases;
}

void validate_stopping_rule(const StoppingRule& r) {
  // NaN fails every comparison, so each check is written as "is it in range".
  if (!(std::isfinite(r.min_seconds) && r.min_seconds >= 0)) {
    throw UsageError(fmt::format("--min-time {}: expected a finite number of seconds >= 0", r.min_seconds));
  }
  if (!(std::isfinite(r.max_seconds) && r.max_seconds > 0 && r.max_seconds >= r.min_seconds)) {
    throw UsageError(fmt::format("--max-time {}: expected a finite number of seconds > 0 and >= --min-time {}",
                                 r.max_seconds, r.min_seconds));
  }
  if (!(r.target_noise > 0 && r.target_noise < 1)) {
    throw UsageError(fmt::format("--noise {}: expected a relative noise between 0 and 1 (0.005 = 0.5%)",
                                 r.target_noise));
  }
  if (r.min_samples < 1) throw UsageError("--min-samples: expected at least 1 timed transfer");
  if (r.warmups < 0) throw UsageError(fmt::format("--warmups {}: expected 0 or more", r.warmups));
}

std::vector<DmaRecord> run_dma_cases(TransferBackend& backend, const std::vector<TransferCase>& cases,
                                     const StoppingRule& rule, const DmaProgress& progress) {
  const auto cpu = host_cpu_model();
  std::vector<DmaRecord> records;
  records.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (progress) progress(i, cases.size(), cases[i].id());
    records.push_back(make_record(cases[i], backend.info(), cpu, backend.measure(cases[i], rule)));
  }
  return records;
}

void require_verified(const std::vector<DmaRecord>& records) {
  for (const auto& r : records) {
    if (!r.waived && !r.verified) {
      throw CheckFailed(fmt::format("data verification failed for {}: {}", r.id, r.verify_detail));
    }
  }
}

}  // namespace kvb

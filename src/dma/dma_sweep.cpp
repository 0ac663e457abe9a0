#include "dma/dma_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>

#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/interrupt.hpp"
#include "core/numa_binding.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "dma/block_sizes.hpp"

namespace kvb {

namespace {

// A case listed twice would be measured twice and reported as two: refused, as --device is.
template <typename T>
void refuse_repeats(const std::vector<T>& items, const char* flag, const std::string& text) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (std::find(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(i), items[i]) !=
        items.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError(fmt::format("{} {}: an item is listed twice; expected distinct items", flag, text));
    }
  }
}

std::vector<int> parse_cta_budgets(const std::string& text) {
  std::vector<int> cta_budgets;
  for (const auto& t : split(text, ',')) {
    const auto n = parse_positive_int(t, "--ctas", true);
    if (n > 65535) throw UsageError(fmt::format("--ctas {}: expected 0 (all) or a count up to 65535", t));
    cta_budgets.push_back(static_cast<int>(n));
  }
  if (cta_budgets.empty())
    throw UsageError("--ctas '': expected 0 (all) or a comma list of CTA counts, e.g. 4,8,16,32");
  return cta_budgets;
}

// The blocks one transfer of `b`-byte blocks moves: --blocks, or 1000 reduced so that a transfer
// takes at most a quarter of the pool and its blocks stay scattered (each reduction noted).
std::int64_t blocks_per_transfer(std::uint64_t b, std::uint64_t pool, std::int64_t given,
                                 std::vector<BlocksReduced>& notes) {
  const bool blocks_given = given > 0;  // 0: --blocks not given
  const auto pool_blocks = static_cast<std::int64_t>(pool / b);
  std::int64_t blocks = blocks_given ? given : 1000;
  if (!blocks_given && blocks > pool_blocks / 4 && pool_blocks >= 4) {
    blocks = pool_blocks / 4;
    notes.push_back({static_cast<std::int64_t>(b), blocks, static_cast<std::int64_t>(pool), true});
  } else if (blocks > pool_blocks) {
    if (blocks_given) {
      throw UsageError(
          fmt::format("--blocks {} of {} need {} but --pool is {}; expected fewer blocks or a larger "
                      "--pool",
                      blocks, format_bytes_binary(static_cast<double>(b)),
                      format_bytes_binary(static_cast<double>(b) * static_cast<double>(blocks)),
                      format_bytes_binary(static_cast<double>(pool))));
    }
    blocks = pool_blocks;
    notes.push_back({static_cast<std::int64_t>(b), blocks, static_cast<std::int64_t>(pool), false});
  }
  return blocks;
}

// A block size must split into 16-byte copies (per layer fragment) and fit the pool.
void check_block(std::uint64_t b, int frags, std::uint64_t pool) {
  if (b % 16 != 0 || (b / static_cast<std::uint64_t>(frags)) % 16 != 0 ||
      b / static_cast<std::uint64_t>(frags) == 0) {
    throw UsageError(fmt::format("--block {} B: expected a multiple of 16 bytes{} (16-byte copies)", b,
                                 frags > 1 ? fmt::format(" per layer fragment ({} layers)", frags) : ""));
  }
  if (b > pool) {
    throw UsageError(fmt::format("--block {} is larger than --pool {}; expected a block that fits the pool",
                                 format_bytes_binary(static_cast<double>(b)),
                                 format_bytes_binary(static_cast<double>(pool))));
  }
}

}  // namespace

std::vector<TransferCase> plan_dma_cases(const DmaSweepSettings& o, bool gpu,
                                         std::vector<BlocksReduced>& notes) {
  const auto sizes = parse_block_sizes(o.block);
  std::vector<Method> methods;
  for (const auto& m : split(o.method, ',')) methods.push_back(parse_method(m, "--method"));
  std::vector<Direction> directions;
  for (const auto& d : split(o.direction, ',')) directions.push_back(parse_direction(d, "--direction"));
  refuse_repeats(methods, "--method", o.method);
  refuse_repeats(directions, "--direction", o.direction);
  const Layout layout = parse_layout(o.layout, "--layout");
  const HostMemKind host_mem = parse_host_mem(o.host_mem, "--host-mem");
  if (o.layers < 1 || o.layers > 1024)
    throw UsageError(fmt::format("--layers {}: expected 1 to 1024", o.layers));
  // Never accept a setting that would not be applied: the node must exist and be bindable.
  if (o.numa_node != -1) validate_numa_node(o.numa_node, "--numa-node");
  const auto cta_budgets = parse_cta_budgets(o.ctas);
  // 2 GiB per pool: four pools (a source and a destination on each side) are pinned and filled
  // once per run, about 2 s on an H100 host; a transfer of up to a quarter of a pool (512 MiB)
  // takes 10 ms at PCIe Gen5 speed, long enough to time.
  const std::uint64_t pool =
      o.pool.empty() ? (gpu ? 2ULL << 30 : 256ULL << 20) : parse_bytes(o.pool, "--pool").bytes;
  const std::int64_t given_blocks = o.blocks.empty() ? 0 : parse_positive_int(o.blocks, "--blocks");
  std::vector<TransferCase> cases;
  for (const auto b : sizes) {
    const int frags = layout == Layout::kPerLayer ? o.layers : 1;
    check_block(b, frags, pool);
    TransferCase base;
    base.layout = layout;
    base.layers = frags;
    base.block_bytes = b;
    base.blocks = blocks_per_transfer(b, pool, given_blocks, notes);
    // Pools hold up to 4x the transfer so the block map scatters.
    base.gpu_pool_blocks = std::min(static_cast<std::int64_t>(pool / b), 4 * base.blocks);
    base.host_pool_blocks = base.gpu_pool_blocks;
    base.host_mem = host_mem;
    base.numa_node = o.numa_node;
    base.seed = o.seed;
    base.with_compute = o.with_compute;
    for (const auto d : directions) {
      for (const auto m : methods) {
        // The CTA budget only shapes the copy kernel; other methods run once.
        for (const int ctas : m == Method::kKernel ? cta_budgets : std::vector<int>{0}) {
          TransferCase c = base;
          c.direction = d;
          c.method = m;
          c.ctas = ctas;
          cases.push_back(c);
        }
      }
    }
  }
  return cases;
}

void apply_quick(DmaSweepSettings& s) {
  s.block = "4KiB,64KiB,2MiB";
  s.rule.precision = 0.02;
  s.rule.max_seconds = 0.25;
  s.rule.warmups = 1;
}

void validate_stopping_rule(const StoppingRule& r) {
  // NaN fails every comparison, so each check is written as "is it in range".
  if (!(std::isfinite(r.min_seconds) && r.min_seconds >= 0)) {
    throw UsageError(fmt::format("--min-time {}: expected a finite number of seconds >= 0", r.min_seconds));
  }
  if (!(std::isfinite(r.max_seconds) && r.max_seconds > 0 && r.max_seconds >= r.min_seconds)) {
    throw UsageError(
        fmt::format("--max-time {}: expected a finite number of seconds > 0 and >= --min-time {}",
                    r.max_seconds, r.min_seconds));
  }
  if (!(r.precision > 0 && r.precision < 1)) {
    throw UsageError(
        fmt::format("--precision {}: expected a relative half-width between 0 and 1 (0.01 = the "
                    "median known to +-1% at 95% confidence)",
                    r.precision));
  }
  if (r.min_samples < 1) throw UsageError("--min-samples: expected at least 1 timed transfer");
  if (r.warmups < 0) throw UsageError(fmt::format("--warmups {}: expected 0 or more", r.warmups));
}

std::vector<DmaRecord> run_dma_cases(TransferBackend& backend, const std::vector<TransferCase>& cases,
                                     const StoppingRule& rule, const DmaProgress& progress) {
  const auto cpu = host_cpu_model();
  std::vector<DmaRecord> records;
  records.reserve(cases.size());
  backend.reserve(cases);
  for (std::size_t i = 0; i < cases.size() && !interrupt_requested(); ++i) {
    if (progress) progress(i, cases.size(), cases[i].id());
    auto result = backend.measure(cases[i], rule);
    if (interrupt_requested()) break;  // the case was cut short: not a measurement
    records.push_back(make_record(cases[i], backend.info(), cpu, std::move(result)));
  }
  return records;
}

std::vector<DmaRecord> run_dma_cases_concurrently(const std::vector<TransferBackend*>& backends,
                                                  const std::vector<TransferCase>& cases,
                                                  const StoppingRule& rule, const DmaProgress& progress) {
  if (backends.size() == 1) return run_dma_cases(*backends.front(), cases, rule, progress);
  const auto cpu = host_cpu_model();
  std::vector<DmaRecord> records;
  records.reserve(cases.size() * backends.size());
  for (auto* b : backends) b->reserve(cases);
  for (std::size_t i = 0; i < cases.size() && !interrupt_requested(); ++i) {
    if (progress) progress(i, cases.size(), cases[i].id());
    ConcurrentGroup group(static_cast<int>(backends.size()));
    std::vector<CaseResult> results(backends.size());
    std::vector<std::exception_ptr> errors(backends.size());
    std::vector<std::thread> threads;
    for (std::size_t d = 0; d < backends.size(); ++d) {
      threads.emplace_back([&, d] {
        // The ticket leaves the group however the measurement ends, so no device waits forever.
        GroupTicket ticket(group);
        StoppingRule mine = rule;
        mine.group = &ticket;
        try {
          results[d] = backends[d]->measure(cases[i], mine);
        } catch (...) {
          errors[d] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    if (interrupt_requested()) break;  // cut short on every device: not a measurement
    for (std::size_t d = 0; d < backends.size(); ++d) {
      records.push_back(make_record(cases[i], backends[d]->info(), cpu, results[d]));
    }
  }
  return records;
}

std::vector<int> parse_device_list(const std::string& text, int count) {
  std::vector<int> out;
  if (text == "all") {
    for (int d = 0; d < count; ++d) out.push_back(d);
    return out;
  }
  for (const auto& t : split(text, ',')) {
    const auto d = parse_positive_int(t, "--device", true, 65535);
    if (d >= count) {
      throw DeviceError(fmt::format("--device {}: this machine has {} device{}; expected 0 to {} or all", d,
                                    count, count == 1 ? "" : "s", count - 1));
    }
    if (std::find(out.begin(), out.end(), static_cast<int>(d)) != out.end()) {
      throw UsageError(
          fmt::format("--device {}: device {} is listed twice; expected distinct indices", text, d));
    }
    out.push_back(static_cast<int>(d));
  }
  if (out.empty())
    throw UsageError("--device '': expected a device index, a comma list such as 0,2,5, or all");
  return out;
}

void check_host_memory(const std::vector<TransferCase>& cases, std::size_t devices, bool host_backend,
                       std::uint64_t mem_available) {
  if (mem_available == 0) return;  // unknown (no /proc/meminfo): the allocation will say
  const auto [gpu, host] = largest_pools(cases);
  const double need =
      static_cast<double>(devices) * 2.0 * static_cast<double>(host + (host_backend ? gpu : 0));
  const double usable = 0.9 * static_cast<double>(mem_available);
  if (need > usable) {
    throw UsageError(
        fmt::format("--pool: the pools need {} of host memory ({} device{} x {} pools of {}), but "
                    "MemAvailable is {}; expected "
                    "a smaller --pool or fewer devices",
                    format_bytes_binary(need), devices, devices == 1 ? "" : "s", host_backend ? 4 : 2,
                    format_bytes_binary(static_cast<double>(std::max(host, gpu))),
                    format_bytes_binary(static_cast<double>(mem_available))));
  }
}

void require_verified(const std::vector<DmaRecord>& records) {
  for (const auto& r : records) {
    if (!r.waived && !r.verified) {
      throw CheckFailed(fmt::format("data verification failed for {}: {}", r.id, r.verify_detail));
    }
  }
}

}  // namespace kvb

// `kvbench dma`: GPU<->CPU KV-block copy benchmark; copy-engine DMA vs copy kernels.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "backend/transfer_backend.hpp"
#include "cli/command.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "dma/block_sizes.hpp"
#include "dma/dma_record.hpp"
#include "output/dma_output.hpp"

namespace kvb {
namespace {

struct DmaOptions {
  std::string backend = "auto";
  int device = 0;
  std::string block = "4KiB..16MiB";
  std::string blocks;               // empty: 1000, reduced to fit the pool
  std::string method = "ce,ce-batch,kernel";
  std::string direction = "h2d,d2h,bidir";
  std::string layout = "contiguous";
  int layers = 32;
  std::string host_mem = "pinned";
  int numa_node = -1;
  int ctas = 0;
  std::string pool;
  std::uint64_t seed = 1;
  double min_time = 0.5;
  double max_time = 15.0;
  double noise = 0.005;
  int min_samples = 10;
  int warmups = 4;
  bool json = false;
  bool csv = false;
  std::string output;
};

std::vector<TransferCase> plan_cases(const DmaOptions& o, bool gpu, std::vector<std::string>& notes) {
  const auto sizes = parse_block_sizes(o.block);
  std::vector<Method> methods;
  for (const auto& m : split(o.method, ',')) methods.push_back(parse_method(m, "--method"));
  std::vector<Direction> directions;
  for (const auto& d : split(o.direction, ',')) directions.push_back(parse_direction(d, "--direction"));
  const Layout layout = parse_layout(o.layout, "--layout");
  const HostMemKind host_mem = parse_host_mem(o.host_mem, "--host-mem");
  if (o.layers < 1 || o.layers > 1024) throw UsageError(fmt::format("--layers {}: expected 1 to 1024", o.layers));
  if (o.numa_node != -1) {
    // Never accept a setting that would not be applied: binding via libnuma is not built yet.
    throw UsageError(fmt::format("--numa-node {}: NUMA binding is not implemented yet; expected it left unset "
                                 "(bind the process with numactl --membind instead)",
                                 o.numa_node));
  }
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
        cases.push_back(c);
      }
    }
  }
  return cases;
}

int run_dma(const DmaOptions& o) {
  std::string notice;
  const auto kind = parse_backend(o.backend);
  if (o.min_time < 0 || o.max_time <= 0 || o.max_time < o.min_time || o.noise <= 0 || o.min_samples < 1 ||
      o.warmups < 0) {
    throw UsageError("--min-time, --max-time, --noise, --min-samples, --warmups: expected 0 <= min-time <= max-time, "
                     "noise > 0, min-samples >= 1, warmups >= 0");
  }
  // Plan (and so validate) before touching any device.
  std::vector<std::string> notes;
  (void)plan_cases(o, kind != BackendKind::kHost, notes);
  auto backend = make_backend(kind, o.device, notice);
  if (!notice.empty()) std::fprintf(stderr, "kvbench: notice: %s\n", notice.c_str());
  notes.clear();
  const auto cases = plan_cases(o, backend->info().backend != "host", notes);
  for (const auto& n : notes) std::fprintf(stderr, "kvbench: note: %s\n", n.c_str());

  StoppingRule rule;
  rule.min_seconds = o.min_time;
  rule.max_seconds = o.max_time;
  rule.target_noise = o.noise;
  rule.min_samples = static_cast<std::size_t>(o.min_samples);
  rule.warmups = o.warmups;
  const auto cpu = host_cpu_model();
  std::vector<DmaRecord> records;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > 2.0) std::fprintf(stderr, "kvbench: [%zu/%zu] %s\n", i + 1, cases.size(), cases[i].id().c_str());
    records.push_back(make_record(cases[i], backend->info(), cpu, backend->measure(cases[i], rule)));
  }

  const auto json_text = dma_json(records).dump(1) + "\n";
  if (!o.output.empty()) write_file_atomically(o.output, o.csv ? dma_csv(records) : json_text);
  if (o.json) {
    std::fputs(json_text.c_str(), stdout);
  } else if (o.csv) {
    std::fputs(dma_csv(records).c_str(), stdout);
  } else {
    const auto& d = backend->info();
    std::printf("kvbench dma: %s backend, %s (driver %s, runtime %s)\n", d.backend.c_str(), d.name.c_str(),
                d.driver_version.c_str(), d.runtime_version.c_str());
    std::printf("link: %s; timing: %s; host CPU: %s\n", d.link.c_str(), d.timing.c_str(), cpu.c_str());
    std::printf("Measured. GB/s = 10^9 B/s over the median sample; bidir = sum of both directions (h2d+d2h each "
                "over its own span); * = noise target not met before the time cap.\n");
    std::fputs(dma_table(records).c_str(), stdout);
  }
  for (const auto& r : records) {
    if (!r.waived && !r.verified) {
      throw CheckFailed(fmt::format("data verification failed for {}: {}", r.id, r.verify_detail));
    }
  }
  return kExitOk;
}

}  // namespace

Command register_dma(CLI::App& parent) {
  auto o = std::make_shared<DmaOptions>();
  auto* app = parent.add_subcommand("dma", "GPU<->CPU KV-block copy benchmark: copy-engine DMA vs copy kernels");
  app->add_option("--backend", o->backend, "auto, cuda, hip or host")->capture_default_str();
  app->add_option("--device", o->device, "GPU index")->capture_default_str();
  app->add_option("--block", o->block, "block sizes: 4KB,16KB,2MiB or a power-of-two range 4KiB..64MiB")
      ->capture_default_str();
  app->add_option("--blocks", o->blocks, "blocks per transfer (default 1000, fewer if the pool is smaller)");
  app->add_option("--method", o->method, "ce, ce-batch, kernel (comma list)")->capture_default_str();
  app->add_option("--direction", o->direction, "h2d, d2h, bidir (comma list)")->capture_default_str();
  app->add_option("--layout", o->layout, "contiguous (vLLM >= 0.12) or per-layer (before 0.12)")->capture_default_str();
  app->add_option("--layers", o->layers, "fragments per block for --layout per-layer")->capture_default_str();
  app->add_option("--host-mem", o->host_mem, "pinned, pageable or write-combined")->capture_default_str();
  app->add_option("--numa-node", o->numa_node, "host memory NUMA node (not implemented yet: use numactl)");
  app->add_option("--ctas", o->ctas, "kernel method: CTAs (GPU) or threads (host); 0 = all")->capture_default_str();
  app->add_option("--pool", o->pool, "bytes per pool side (default 8GiB on a GPU, 256MiB on the host backend)");
  app->add_option("--seed", o->seed, "block-map seed")->capture_default_str();
  app->add_option("--min-time", o->min_time, "seconds of timed work at least")->capture_default_str();
  app->add_option("--max-time", o->max_time, "seconds per case at most")->capture_default_str();
  app->add_option("--noise", o->noise, "target relative noise (stddev/mean)")->capture_default_str();
  app->add_option("--min-samples", o->min_samples, "timed transfers at least")->capture_default_str();
  app->add_option("--warmups", o->warmups, "untimed transfers first")->capture_default_str();
  app->add_flag("--json", o->json, "print JSON (schema kvbench/dma/v1)");
  app->add_flag("--csv", o->csv, "print CSV");
  app->add_option("--output,-o", o->output, "also write the JSON (or CSV with --csv) to this file, atomically");
  return Command{app, [o] { return run_dma(*o); }};
}

}  // namespace kvb

// `kvbench storage --dir DIR`: KV chunks written from host memory to files and read back, in the
// layouts vLLM's and LMCache's disk tiers use, buffered and O_DIRECT, by threads or io_uring.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/output_flags.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "dma/block_sizes.hpp"
#include "output/storage/storage_output.hpp"
#include "storage/io_pass.hpp"
#include "storage/storage_json.hpp"
#include "storage/storage_run.hpp"

namespace kvb {
namespace {

struct StorageOptions {
  std::string dir;
  std::string size = "256MiB";
  std::string chunk = "256KiB,1MiB,4MiB,16MiB";
  std::string layout = "file-per-chunk,per-rank-file";
  std::string mode;    // default: buffered,direct (direct skipped where refused)
  std::string engine;  // default: threads, and io_uring where built
  bool direct = false;
  std::string threads = "4";
  std::string queue_depth = "8";
  std::string repeat = "3";
  std::string seed = "1";
  OutputFlags out;
};

// Each value once, as --threads takes them: a value listed twice ran its cases twice under one id.
template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& text, const char* what, Parse parse) {
  std::vector<T> out;
  for (const auto& part : split(text, ',')) {
    const T v = parse(trim_copy(part), what);
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw UsageError(
          fmt::format("{} '{}': {} is listed twice; expected each value once", what, text, to_string(v)));
    out.push_back(v);
  }
  return out;
}

// An O_DIRECT run asked for by name on a file system that refuses it is bad input, not a skip.
void check_explicit_direct(const StorageOptions& o, const StorageDirFacts& d,
                           const std::vector<IoMode>& modes) {
  const bool asked = o.direct || !o.mode.empty();
  const bool direct = std::find(modes.begin(), modes.end(), IoMode::kDirect) != modes.end();
  if (asked && direct && !d.direct_supported) {
    throw UsageError(
        fmt::format("--dir {}: {}; O_DIRECT cannot be measured there (expected a directory on a file "
                    "system that takes O_DIRECT, or --mode buffered)",
                    printable_path(d.path), d.direct_refusal));
  }
}

// The host buffer holds one case's chunks: it must fit beside what already runs.
void check_host_room(std::uint64_t bytes) {
  const auto available = host_memory_available();
  if (available > 0 && bytes > available / 2) {
    throw UsageError(
        fmt::format("--size {}: more than half the host's available memory ({}); expected a smaller "
                    "--size (the host buffer holds one case's chunks)",
                    format_bytes_binary(static_cast<double>(bytes)),
                    format_bytes_binary(static_cast<double>(available))));
  }
}

StorageSweep parse_sweep(const StorageOptions& o) {
  if (o.direct && !o.mode.empty()) throw UsageError("--direct and --mode: expected one of them");
  StorageSweep s;
  s.size_bytes = parse_bytes(o.size, "--size").bytes;
  s.chunk_sizes = parse_block_sizes(o.chunk, "--chunk");
  s.layouts = parse_list<StorageLayout>(o.layout, "--layout", parse_storage_layout);
  const auto modes = o.direct         ? std::string("direct")
                     : o.mode.empty() ? std::string("buffered,direct")
                                      : o.mode;
  s.modes = parse_list<IoMode>(modes, "--mode", parse_io_mode);
  const auto engines = !o.engine.empty() ? o.engine : io_uring_built() ? "threads,io_uring" : "threads";
  s.engines = parse_list<IoEngine>(engines, "--engine", parse_io_engine);
  if (!o.engine.empty() && !io_uring_built() &&
      std::find(s.engines.begin(), s.engines.end(), IoEngine::kIoUring) != s.engines.end()) {
    throw UsageError("--engine io_uring: " + io_uring_text(false) + "; expected --engine threads");
  }
  s.threads = parse_int_list(o.threads, "--threads", kMaxThreads);
  s.queue_depths = parse_int_list(o.queue_depth, "--queue-depth", kMaxQueueDepth);
  s.seed = static_cast<std::uint64_t>(parse_positive_int(o.seed, "--seed", true, INT64_MAX));
  check_sweep(s);
  return s;
}

// The most files one case holds at once: a file per chunk at the smallest chunk, else one file.
std::uint64_t files_per_case(const StorageSweep& s) {
  const bool per_chunk =
      std::find(s.layouts.begin(), s.layouts.end(), StorageLayout::kFilePerChunk) != s.layouts.end();
  return per_chunk ? s.size_bytes / *std::min_element(s.chunk_sizes.begin(), s.chunk_sizes.end()) : 1;
}

// storage's printers: the table, kvbench/storage/v1.
const Printers<StorageDocument> kStoragePrinters{
    {OutputFormat::kTable, [](const StorageDocument& d) { return storage_text(d); }},
    {OutputFormat::kJson, [](const StorageDocument& d) { return json_text(storage_json(d), 2); }}};

int run_storage(const StorageOptions& o) {
  const auto format = chosen_format(o.out);
  const auto sweep = parse_sweep(o);
  StorageRunSettings settings;
  settings.repeats = static_cast<int>(parse_int_in(o.repeat, "--repeat", 1, 1000));
  StorageDocument doc;
  doc.dir = probe_storage_dir(o.dir);
  doc.repeats = settings.repeats;
  doc.io_uring_built = io_uring_built();
  require_room(doc.dir, sweep.size_bytes, files_per_case(sweep));
  check_host_room(sweep.size_bytes);
  check_explicit_direct(o, doc.dir, sweep.modes);
  const auto cases = plan_cases(sweep);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (interrupt_requested()) {
      doc.interrupted = true;
      break;
    }
    std::fprintf(stderr, "kvbench: [%zu/%zu] %s\n", i + 1, cases.size(), cases[i].id().c_str());
    doc.records.push_back(run_storage_case(doc.dir, cases[i], settings));
  }
  emit_result(o.out, format, kStoragePrinters, doc);
  require_verified(doc.records);  // after the output shows the failure
  return kExitOk;                 // main turns a signal into 130/143
}

}  // namespace

Command register_storage(CLI::App& parent) {
  auto o = std::make_shared<StorageOptions>();
  auto* app = parent.add_subcommand(
      "storage",
      "KV-chunk write and read throughput between host memory and files, as the engines' disk tiers "
      "move them (every chunk verified)");
  app->add_option("--dir", o->dir, "directory to write the chunk files in (removed at the end)")->required();
  app->add_option("--size", o->size,
                  "data per case: chunks = size / chunk (at most the directory's free space)")
      ->capture_default_str();
  app->add_option("--chunk", o->chunk,
                  "chunk sizes: a list or a power-of-two range (256KiB..16MiB); multiples of 4 KiB")
      ->capture_default_str();
  app->add_option("--layout", o->layout, "file-per-chunk, per-rank-file, or both")->capture_default_str();
  app->add_option("--mode", o->mode,
                  "buffered, direct, or both [default: both; direct skipped where refused]");
  app->add_flag("--direct", o->direct, "O_DIRECT only (exit 2 where the file system refuses it)");
  app->add_option("--engine", o->engine,
                  "threads, io_uring, or both [default: both where io_uring is built]");
  app->add_option("--threads", o->threads, "threads issuing I/O: a list (1,4,16)")->capture_default_str();
  app->add_option("--queue-depth", o->queue_depth, "io_uring requests in flight per thread: a list")
      ->capture_default_str();
  app->add_option("--repeat", o->repeat, "write+read passes per case (compare needs 3 or more)")
      ->capture_default_str();
  app->add_option("--seed", o->seed, "data pattern seed (0 or more)")->capture_default_str();
  add_output_flags(app, o->out, formats_of(kStoragePrinters), kStorageSchema);
  return Command{app, [o] { return run_storage(*o); }};
}

}  // namespace kvb

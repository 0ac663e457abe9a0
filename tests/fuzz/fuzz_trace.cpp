// libFuzzer target: request traces (Mooncake JSONL, kvbench JSONL, CSV, AIPerf exports, GuideLLM and
// inference-perf reports, vLLM request logs; an llm-d-benchmark report refused) as `kvbench trace`
// reads them from a file. Any input ends in an analysis whose hit rates lie in [0, 1], or a
// UsageError naming the line; never a crash, a hang or another exception.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "trace/trace_analysis.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto path =
      (std::filesystem::temp_directory_path() / ("kvb-fuzz-trace-" + std::to_string(::getpid()))).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    kvb::TraceOptions options;
    options.block_tokens = 16;
    options.limit =
        8;  // parsing is what is fuzzed: a few requests of up to 16,384 blocks each bound the work
    const auto a = kvb::analyze_trace(path, options);
    if (!(a.unbounded_prefix_hit_rate >= 0 && a.unbounded_prefix_hit_rate <= 1 + 1e-9)) std::abort();
    for (const auto& p : a.curve) {
      if (!(p.prefix_hit_rate >= 0 && p.prefix_hit_rate <= a.unbounded_prefix_hit_rate + 1e-9)) std::abort();
    }
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

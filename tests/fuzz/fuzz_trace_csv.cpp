// libFuzzer target: the CSV trace reader. The input is a CSV trace's body under a fixed header (its
// first line replaces the header when it names columns), so the fuzzer spends its time in the
// cells: times, token counts, BOMs, quotes. Any input ends in an analysis or a UsageError naming
// the line; never a crash, a hang or another exception.
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
      (std::filesystem::temp_directory_path() / ("kvb-fuzz-csv-" + std::to_string(::getpid()))).string();
  const std::string body(reinterpret_cast<const char*>(data), size);
  const bool own_header =
      body.find(',') < body.find('\n') && body.find_first_of("0123456789") > body.find(',');
  const std::string text = own_header ? body : "TIMESTAMP,ContextTokens,GeneratedTokens\n" + body;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  try {
    kvb::TraceOptions options;
    options.block_tokens = 64;
    options.limit = 16;  // a few requests of up to 16,384 blocks each bound the work
    const auto a = kvb::analyze_trace(path, options);
    if (a.requests < 0 || a.requests > options.limit || !(a.duration_s >= 0 && a.duration_s <= 1e9))
      std::abort();
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

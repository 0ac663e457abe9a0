// libFuzzer target: calibrate --from-vllm's reader of a real server's results (vllm bench serve
// JSON, residency-vllm CSV, AIPerf's and GuideLLM's results). Any input ends in requests a replay
// can take (in arrival order, lengths within the replay's limit, the end after the first token) or
// a UsageError naming the file and the field; never a crash, undefined behaviour or another exception.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "calibrate/vllm_results.hpp"
#include "core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto path =
      (std::filesystem::temp_directory_path() / ("kvb-fuzz-vllm-" + std::to_string(::getpid()))).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const auto run = kvb::read_vllm_run(path);
    double previous = 0;
    for (const auto& r : run.requests) {
      if (r.arrival_s < previous || r.prompt_tokens < 1 || r.output_tokens < 1 || r.e2e_s < r.ttft_s ||
          !(r.arrival_s <= 1e7)) {
        std::abort();
      }
      previous = r.arrival_s;
    }
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

// libFuzzer target: size --from-vllm-log's reader of a vLLM start-up log, its non-default args'
// Python literals included. The input is one log: it ends in the facts read or a UsageError naming
// the log; never a crash, a hang or another exception, and never a negative pool or report count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "catalog/vllm_startup_log.hpp"
#include "core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto log = kvb::parse_vllm_startup_log(text, "fuzz.log");
    if (log.pool_reports < 0 || (log.gpu_kv_tokens && *log.gpu_kv_tokens < 0)) std::abort();
    if (log.gpu_blocks && *log.gpu_blocks < 0) std::abort();
    if (log.pool_reports == 0 && (log.gpu_kv_tokens || log.gpu_blocks)) std::abort();
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

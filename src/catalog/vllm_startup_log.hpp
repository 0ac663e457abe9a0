#pragma once
// A vLLM server's start-up log, read for what it says about the server (`size --from-vllm-log`):
// its release, its non-default args, and the GPU KV pool as the engine logged it. Facts only, as
// logged: which of them size takes, and how, is size/'s (size/logged_pool.hpp).
//
// Lines read (anywhere in a line, whatever prefix a launcher adds: "(EngineCore_DP0 pid=1) INFO
// 06-01 09:22:30 [kv_cache_utils.py:1733] ", a container's name):
//   "vLLM API server version X", the banner's "version X", "Initializing a V1 LLM engine (vX) with
//   config: model='M', ..., tensor_parallel_size=N, ...", "non-default args: {...}",
//   "Using max model len N", "Chunked prefill is enabled with max_num_batched_tokens=N",
//   "Available KV cache memory: X GiB", "GPU KV cache size: N tokens", "Maximum concurrency for T
//   tokens per request: Cx", "# GPU blocks: N" (V0) and "num_gpu_blocks is: N".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvb {

// A log larger than this is refused; a line longer than this is skipped (no start-up line is).
inline constexpr std::size_t kMaxVllmLogBytes = std::size_t{256} << 20;
inline constexpr std::size_t kMaxVllmLogLine = std::size_t{1} << 20;

// One report of the pool. With TP > 1, or a hybrid model's groups, the engine may log it more than once.
struct LoggedPoolReport {
  std::optional<std::int64_t> gpu_kv_tokens;  // "GPU KV cache size: N tokens"
  std::optional<std::int64_t> gpu_blocks;     // "# GPU blocks: N" or "num_gpu_blocks is: N"
};

struct VllmStartupLog {
  std::string release;  // "0.20.1" ("" when no line names it)
  std::vector<std::string>
      models;  // the names it serves: args' model, hf_config_path, served_model_name, config's model
  nlohmann::json args = nlohmann::json::object();  // the non-default args, as logged
  // The server keys (sim/server_fields' spelling: "tensor-parallel-size") the log states, as text.
  std::map<std::string, std::string> server_keys;
  // Non-default args that change the sizing and kvbench does not take from the log (key: value).
  std::vector<std::string> not_taken;
  std::optional<double> available_kv_gib;          // "Available KV cache memory: X GiB" (the last)
  std::optional<std::int64_t> gpu_kv_tokens;       // the smallest logged (vLLM keeps the smallest rank's)
  std::optional<std::int64_t> gpu_blocks;          // likewise
  std::optional<std::int64_t> concurrency_tokens;  // T in "Maximum concurrency for T tokens per request"
  std::optional<double> concurrency;               // C in "...: Cx"
  int pool_reports = 0;                            // lines that reported the pool's size
  bool pool_reports_agree = true;                  // every report gave the same figure
  int lines_skipped = 0;                           // lines over kMaxVllmLogLine
};

// The log's text; `name` names it in errors. UsageError "<name>: not a vLLM start-up log ..." when
// no line is one vLLM writes at start-up, or "<name>:<line>: ..." for a non-default args line that
// cannot be read.
VllmStartupLog parse_vllm_startup_log(std::string_view text, const std::string& name);

// Reads a file (a regular file of at most kMaxVllmLogBytes) and parses it.
VllmStartupLog read_vllm_startup_log(const std::string& path);

}  // namespace kvb

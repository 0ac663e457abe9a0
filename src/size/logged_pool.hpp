#pragma once
// size --from-vllm-log: a server sized with the GPU KV pool its start-up log states
// (catalog/vllm_startup_log), beside the pool kvbench's own budget model gives the same server on
// the same GPU: a check of that model against a real engine.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "catalog/vllm_startup_log.hpp"
#include "server/serve_settings.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {

struct LoggedPool {
  std::string release;                        // "0.20.1"; "" when the log does not name it
  std::int64_t blocks = 0;                    // the pool sized, in kvbench's blocks of this layout
  std::optional<std::int64_t> tokens_logged;  // "GPU KV cache size: N tokens"
  std::optional<std::int64_t> blocks_logged;  // "# GPU blocks: N" / "num_gpu_blocks is: N"
  std::optional<double> kv_gib_logged;        // "Available KV cache memory: X GiB"
  int reports = 0;                            // lines that reported the pool
  bool reports_agree = true;
  // The logged tokens are not a whole number of kvbench's blocks: its block size differs from the server's.
  bool tokens_not_whole_blocks = false;
  double block_bytes = 0;            // one block of the pool, every layer of a rank
  int block_size = 0;                // tokens per block of this layout
  std::int64_t estimate_blocks = 0;  // kvbench's budget model: the same server on the same GPU
  bool pool_given = false;           // --kv-cache-memory was given: the log's pool is not the one sized
  std::vector<std::pair<std::string, std::string>> from_log;  // server keys the log set: key, text
  std::vector<std::string> overridden;                        // keys the command line gave over the log's
  std::vector<std::string> not_taken;                         // the log's args kvbench does not take
  std::vector<std::string> models;                            // the names the log serves
};

// UsageError "<name>: ... ; expected ..." naming what a log that states no pool lacks (a server
// that never finished starting: no "GPU KV cache size" and no "# GPU blocks" line).
void require_logged_pool(const VllmStartupLog& log, const std::string& name);

// The pool's blocks in `layout`'s blocks: the logged block count, else the logged tokens over the
// block size (a hybrid model's tokens count every group: times the groups). `whole` is false when
// the tokens are not a whole number of blocks.
std::int64_t logged_blocks(const VllmStartupLog& log, const KvLayout& layout, bool& whole);

struct LoggedSizing {
  SizedConfigurations sized;
  LoggedPool pool;
};

// Sizes the server with the logged pool as its --kv-cache-memory-bytes (blocks x block bytes, so
// that its num_gpu_blocks is the logged count), and kvbench's own estimate without it. A
// kv_cache_memory in `serve` (given on the command line) wins: then the pool is not the log's.
LoggedSizing size_with_logged_pool(const ModelSpec& model, const HardwareSpec& hw, ServeSettings serve,
                                   const NodeOverrides& node, const VllmStartupLog& log);

}  // namespace kvb

#include "size/logged_pool.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {
namespace {

constexpr double kMaxLoggedPoolBytes = 1024.0 * 1024 * 1024 * 1024 * 1024;  // 1 PiB

}  // namespace

void require_logged_pool(const VllmStartupLog& log, const std::string& name) {
  if (log.gpu_kv_tokens.value_or(1) == 0 || log.gpu_blocks.value_or(1) == 0) {
    throw UsageError(
        fmt::format("{}: the log states a GPU KV pool of 0 blocks, which no server starts with; "
                    "expected the log of a server that started",
                    name));
  }
  if (log.gpu_kv_tokens || log.gpu_blocks) return;
  throw UsageError(fmt::format(
      "{}: the log states no GPU KV pool (no \"GPU KV cache size: N tokens\" or \"# GPU blocks: N\" line: "
      "the server did not finish starting, or the log was cut before it); expected the log of a server "
      "that started",
      name));
}

std::int64_t logged_blocks(const VllmStartupLog& log, const KvLayout& layout, bool& whole) {
  whole = true;
  if (log.gpu_blocks) return *log.gpu_blocks;
  const std::int64_t bs = layout.block_size;
  const std::int64_t tokens = log.gpu_kv_tokens.value_or(0);
  if (bs <= 0) return 0;
  whole = tokens % bs == 0;
  // vLLM logs num_blocks // num_groups * block_size (vllm/v1/core/kv_cache_utils.py); one group: num_blocks *
  // block_size.
  return layout.uniform ? tokens / bs : tokens / bs * layout.num_groups;
}

LoggedSizing size_with_logged_pool(const ModelSpec& model, const HardwareSpec& hw, ServeSettings serve,
                                   const NodeOverrides& node, const VllmStartupLog& log) {
  LoggedSizing out;
  auto& p = out.pool;
  p.release = log.release;
  p.tokens_logged = log.gpu_kv_tokens;
  p.blocks_logged = log.gpu_blocks;
  p.kv_gib_logged = log.available_kv_gib;
  p.reports = log.pool_reports;
  p.reports_agree = log.pool_reports_agree;
  p.not_taken = log.not_taken;
  p.models = log.models;
  const bool given = serve.kv_cache_memory.has_value();
  auto estimate_serve = serve;
  estimate_serve.kv_cache_memory.reset();
  auto estimate = size_configurations({model}, {hw}, estimate_serve, node);
  const auto& e = estimate.results.front();
  p.estimate_blocks = e.num_gpu_blocks;
  p.block_bytes = static_cast<double>(e.layout.page_bytes * e.layout.group_size);
  p.block_size = e.layout.block_size;
  bool whole = true;
  p.blocks = logged_blocks(log, e.layout, whole);
  p.tokens_not_whole_blocks = !whole;
  if (given) {
    p.pool_given = true;
    out.sized = size_configurations({model}, {hw}, serve, node);
    return out;
  }
  // No GPU holds a petabyte: a larger pool is a log kvbench misread or a forged one, not a server.
  if (static_cast<double>(p.blocks) * p.block_bytes > kMaxLoggedPoolBytes) {
    throw UsageError(
        fmt::format("--from-vllm-log: the logged pool, {} blocks of {:.0f} B, is over 1 PiB per rank; "
                    "expected a pool a GPU holds",
                    p.blocks, p.block_bytes));
  }
  serve.kv_cache_memory = static_cast<std::uint64_t>(p.blocks) * static_cast<std::uint64_t>(p.block_bytes);
  out.sized = size_configurations({model}, {hw}, serve, node);
  return out;
}

}  // namespace kvb

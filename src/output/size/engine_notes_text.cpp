#include "output/size/engine_notes_text.hpp"

#include <fmt/format.h>

#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

const char* plural(int n) { return n == 1 ? "" : "s"; }

std::string text(const SglangHostRaised& n) {
  return fmt::format(
      "raised to {:.0f} GB per rank: SGLang requires the host pool to exceed the device pool ({:.1f} GB per "
      "rank)",
      n.host_gb, n.device_gb);
}

std::string text(const SglangHicacheSize& n) {
  return fmt::format(
      "--hicache-size is GB (10^9) per rank: {} GiB across {} rank{} = {:.1f} GB per rank, rounded up "
      "(sglang/srt/mem_cache/memory_pool_host.py)",
      n.gib, n.ranks, plural(n.ranks), n.per_rank_gb);
}

std::string text(const SglangHicacheRatio& n) {
  return fmt::format(
      "the same as --hicache-ratio {:.2f} (host pool / device pool, {:.1f} GB per rank from vLLM's budget; "
      "SGLang's --mem-fraction-static gives a slightly different pool)",
      n.ratio, n.device_gb);
}

std::string text(const SglangLayouts&) {
  return "layouts: page_first with the kernel I/O backend (SGLang's HiCache best practices); layer_first is "
         "the "
         "default and suits --hicache-io-backend direct";
}

std::string text(const KvbmCacheSize& n) {
  return fmt::format(
      "DYN_KVBM_CPU_CACHE_GB is GB (10^9) for the instance, its {} rank{} together: {} GiB = {:.0f} GB "
      "rounded up, "
      "{} host blocks of {} tokens ({} each across the ranks; KVBM's leader, compute_num_blocks)",
      n.ranks, plural(n.ranks), n.gib, n.cache_gb, format_count(n.host_blocks), n.block_tokens,
      format_bytes_binary(n.block_bytes));
}

std::string text(const KvbmAgainstGpuPool& n) {
  if (!n.above) {
    return fmt::format(
        "below the {:.1f} GiB GPU KV pool: KVBM is write-through and churns when its CPU cache is smaller "
        "than "
        "the GPU's (KVBM's docs)",
        n.gpu_pool_gib);
  }
  return fmt::format(
      "above the {:.1f} GiB GPU KV pool, as KVBM's docs require (write-through: a smaller CPU cache churns); "
      "their "
      "rule of thumb of 100 GB or more is generic, this size is from the model's KV{}",
      n.gpu_pool_gib, n.simulated ? " and the simulated traffic" : " and the sessions kept warm");
}

std::string text(const KvbmInitTimeout& n) {
  return fmt::format(
      "pinning the tier takes up to {:.0f} s here: the leader-worker timeout is raised from its 120 s "
      "default to "
      "{} s",
      n.pin_s, n.timeout_s);
}

std::string text(const KvbmStandalone&) {
  return "the same --kv-transfer-config runs KVBM without the rest of Dynamo on vllm serve (pip install "
         "kvbm)";
}

std::string text(const LmcacheSizePerRank& n) {
  return fmt::format(
      "LMCACHE_MAX_LOCAL_CPU_SIZE is GiB per rank (LMCache multiplies it by 1024**3 in each worker): {} GiB "
      "/ {} "
      "rank{}",
      n.gib, n.ranks, plural(n.ranks));
}

std::string text(const LmcacheEnvironment&) {
  return "set in the environment, it holds whether or not your vLLM passes --kv-offloading-size on to "
         "LMCache "
         "(reported ignored with --kv-offloading-backend lmcache on newer vLLM; not checked by kvbench)";
}

std::string text(const WordedEngineNote& n) { return n.text; }  // an older document's, as written

}  // namespace

std::string engine_note_text(const EngineNote& note) {
  return std::visit([](const auto& n) { return text(n); }, note);
}

std::vector<std::string> engine_note_lines(const std::vector<EngineNote>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(engine_note_text(n));
  return out;
}

}  // namespace kvb

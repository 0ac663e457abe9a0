#pragma once
// llm-d's approximate prefix-cache producer: the router's own record of which prompt blocks it sent
// to each replica, an LRU per replica, learning nothing from the replicas (no KV events): what the
// `prefix-approx` router scores. Blocks are 64-token prefixes (the producer's minimum block,
// llm-d-router pkg/epp/framework/plugins/requestcontrol/dataproducer/approximateprefix/types.go,
// minBlockSizeTokens), each named by the hash of its whole prefix.
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace kvb {

inline constexpr int kSentPrefixBlockTokens = 64;

class SentPrefixIndex {
 public:
  // `capacity`: blocks kept per replica (llm-d sizes it from vLLM's num_gpu_blocks when autotuned).
  explicit SentPrefixIndex(std::int64_t capacity) : capacity_(capacity) {}
  // Leading blocks of `prefix_hashes` this replica was sent (the walk stops at the first miss).
  std::int64_t match(const std::vector<std::uint64_t>& prefix_hashes) const;
  // The request went here: its blocks are the most recently sent; the oldest beyond capacity go.
  void record(const std::vector<std::uint64_t>& prefix_hashes);
  std::int64_t size() const { return static_cast<std::int64_t>(order_.size()); }

 private:
  std::int64_t capacity_;
  std::list<std::uint64_t> order_;  // most recent first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
};

// The 64-token prefix hashes of a prompt from its simulated blocks' chained hashes: the hash of
// block k x (64 / block_size) - 1 names the first 64 k tokens. Whole 64-token blocks only.
std::vector<std::uint64_t> sent_prefix_hashes(const std::vector<std::uint64_t>& block_hashes,
                                              std::int64_t prompt_tokens, int block_size);

}  // namespace kvb

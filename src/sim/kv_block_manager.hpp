#pragma once
// The GPU KV cache as vLLM v1's block pool sees it: a fixed number of blocks with reference
// counts, a prefix cache from block hash to block, and a free queue in LRU order whose cached
// blocks stay reusable until they are handed out again (evicted). Blocks never handed out are
// not stored: they sit, in id order, at the head of the free queue (where vLLM's queue starts), and
// the table grows as they are first taken, so a pool costs memory for what its traffic touched.
// The free queue is an array of block ids rather than vLLM's linked list: a block taken from its
// middle (a prefix hit) leaves a stale entry behind, so freeing and taking a block touch no other
// block, and the next blocks to evict are known ahead (a fleet's pools miss the CPU caches).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/block_hash_index.hpp"
#include "sim/request.hpp"

namespace kvb {

class KvBlockManager {
 public:
  KvBlockManager(std::int64_t num_blocks, int block_size, bool prefix_caching);
  // What one block of the table costs this process (sim/memory_estimate: checked before a run).
  static std::size_t bytes_per_block();

  std::int64_t num_blocks() const { return total_blocks_; }
  std::int64_t num_free() const { return free_count_; }
  std::int64_t num_used() const { return num_blocks() - free_count_; }
  int block_size() const { return block_size_; }

  // Leading blocks of `hashes` (at most `max_blocks`) found in the prefix cache.
  std::vector<std::int32_t> find_prefix(const std::vector<std::uint64_t>& hashes,
                                        std::int64_t max_blocks) const;

  // Free-queue blocks that allocate(r, hits, tokens) would take: new blocks plus the hits that sit
  // in the free queue (vLLM's get_num_blocks_to_allocate).
  std::int64_t blocks_to_allocate(const SimRequest& r, const std::vector<std::int32_t>& hits,
                                  std::int64_t tokens) const;

  // Gives `r` the prefix-hit blocks `hits` (when it holds none yet) and enough new blocks to
  // hold `tokens` tokens. All or nothing: false when the free queue is too short.
  bool allocate(SimRequest& r, const std::vector<std::int32_t>& hits, std::int64_t tokens);

  // Registers r's full blocks (up to `full_blocks`) in the prefix cache.
  void cache_blocks(SimRequest& r, std::int64_t full_blocks);

  // Drops r's references; blocks reaching zero join the free queue, last block first, so a
  // request's tail is evicted before its shared head (vLLM's order).
  void release(SimRequest& r);

  // vLLM's reset_prefix_cache: forgets the hashes of every free block.
  void reset_prefix_cache();

  // Checks reference counts against the holders, the free queue and the hash map. Returns an
  // empty string when consistent, else what is wrong: the text of the CheckFailed error
  // ServingEngine throws (an error message, worded where the invariant is known).
  std::string check(const std::vector<const SimRequest*>& holders) const;

  std::int64_t evictions() const { return evictions_; }
  // Changes whenever the prefix cache gains or loses a hash (lookups can be reused until then).
  std::uint64_t version() const { return version_; }

 private:
  static constexpr std::uint32_t kNotQueued = 0xffffffffU;
  struct Block {
    std::uint64_t hash = 0;
    std::uint32_t queue_pos = kNotQueued;  // while free: its entry's position in the queue
    std::uint32_t refs : 31 = 0;
    std::uint32_t hashed : 1 = 0;
  };
  static_assert(sizeof(Block) == 16, "four blocks a cache line");
  bool in_free_queue(const Block& b) const { return b.queue_pos != kNotQueued; }
  void push_free_back(std::int32_t id);
  void take_free(Block& b);
  std::int32_t pop_free_front();
  void compact_queue();
  bool live_entry(std::size_t i) const;  // queue_[i] is its block's entry
  template <typename F>
  void for_each_queued(const F& f) const;
  void unhash(Block& b);
  // The hash block `id` holds, or nullptr: how the index checks its entries.
  const std::uint64_t* hash_of(std::int32_t id) const {
    const auto& b = blocks_[static_cast<std::size_t>(id)];
    return b.hashed ? &b.hash : nullptr;
  }

  std::vector<Block> blocks_;  // blocks handed out at least once: ids 0 .. size() - 1
  std::int64_t total_blocks_ = 0;
  int block_size_;
  bool prefix_caching_;
  // The free queue from queue_head_ on: a block's entry is live while its queue_pos names it.
  // Positions are absolute: queue_[i] is at position queue_base_ + i.
  std::vector<std::int32_t> queue_;
  std::size_t queue_head_ = 0, queue_base_ = 0;
  std::int64_t free_count_ = 0;  // never handed out, plus the queue's live entries
  std::int64_t evictions_ = 0;
  std::uint64_t version_ = 0;
  std::size_t hashed_ = 0;  // blocks holding a hash: the prefix cache's entries
  BlockHashIndex cached_;
};

}  // namespace kvb

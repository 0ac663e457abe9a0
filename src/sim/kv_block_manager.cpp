#include "sim/kv_block_manager.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kvb {
namespace {

// How far ahead a loop over a request's blocks fetches the lines it will touch.
constexpr std::int64_t kAhead = 8;

}  // namespace

KvBlockManager::KvBlockManager(std::int64_t num_blocks, int block_size, bool prefix_caching)
    : total_blocks_(num_blocks),
      block_size_(block_size),
      prefix_caching_(prefix_caching),
      free_count_(num_blocks),
      cached_(num_blocks) {}

std::size_t KvBlockManager::bytes_per_block() { return sizeof(Block); }

void KvBlockManager::push_free_back(std::int32_t id) {
  const auto never_used = total_blocks_ - static_cast<std::int64_t>(blocks_.size());
  const auto live = static_cast<std::size_t>(free_count_ - never_used);
  const auto entries = queue_.size() - queue_head_;
  if (entries - live > live + 64 || queue_base_ + queue_.size() >= kNotQueued) {
    compact_queue();  // more stale entries than live ones, or positions about to wrap
  } else if (queue_head_ >= 1024 && queue_head_ * 2 >= queue_.size()) {
    // The consumed front goes; positions are absolute, so no block is touched.
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_));
    queue_base_ += queue_head_;
    queue_head_ = 0;
  }
  blocks_[static_cast<std::size_t>(id)].queue_pos = static_cast<std::uint32_t>(queue_base_ + queue_.size());
  queue_.push_back(id);
  ++free_count_;
}

// A free block taken from the middle of the queue: its entry goes stale.
void KvBlockManager::take_free(Block& b) {
  b.queue_pos = kNotQueued;
  --free_count_;
}

bool KvBlockManager::live_entry(std::size_t i) const {
  return blocks_[static_cast<std::size_t>(queue_[i])].queue_pos == queue_base_ + i;
}

template <typename F>
void KvBlockManager::for_each_queued(const F& f) const {
  for (auto i = queue_head_; i < queue_.size(); ++i) {
    if (live_entry(i)) f(queue_[i]);
  }
}

// Keeps the live entries only, numbered from 0: each one's block learns its new position.
void KvBlockManager::compact_queue() {
  std::size_t out = 0;
  for (auto i = queue_head_; i < queue_.size(); ++i) {
    if (!live_entry(i)) continue;
    const auto id = queue_[i];
    blocks_[static_cast<std::size_t>(id)].queue_pos = static_cast<std::uint32_t>(out);
    queue_[out++] = id;
  }
  queue_.resize(out);
  queue_head_ = 0;
  queue_base_ = 0;
}

std::int32_t KvBlockManager::pop_free_front() {
  if (static_cast<std::int64_t>(blocks_.size()) < total_blocks_) {
    // A block never handed out: first in the queue, holding no hash, stored from now on.
    const auto id = static_cast<std::int32_t>(blocks_.size());
    blocks_.emplace_back();
    --free_count_;
    return id;
  }
  for (;; ++queue_head_) {
    if (queue_head_ + kAhead < queue_.size())  // the blocks evicted next
      __builtin_prefetch(&blocks_[static_cast<std::size_t>(queue_[queue_head_ + kAhead])]);
    if (live_entry(queue_head_)) break;
  }
  const auto id = queue_[queue_head_++];
  auto& b = blocks_[static_cast<std::size_t>(id)];
  take_free(b);
  if (b.hashed) {  // handing out a cached block evicts it from the prefix cache
    unhash(b);
    ++evictions_;
  }
  return id;
}

// The block leaves the prefix cache; its index entry goes stale (sim/block_hash_index.hpp).
void KvBlockManager::unhash(Block& b) {
  b.hashed = 0;
  --hashed_;
  ++version_;
}

std::vector<std::int32_t> KvBlockManager::find_prefix(const std::vector<std::uint64_t>& hashes,
                                                      std::int64_t max_blocks) const {
  std::vector<std::int32_t> hits;
  if (!prefix_caching_) return hits;
  const auto n = std::min<std::int64_t>(max_blocks, static_cast<std::int64_t>(hashes.size()));
  for (std::int64_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(cached_.home_slot(hashes[static_cast<std::size_t>(i + kAhead)]));
    const auto id =
        cached_.find(hashes[static_cast<std::size_t>(i)], [this](std::int32_t b) { return hash_of(b); });
    if (id < 0) break;
    hits.push_back(id);
  }
  return hits;
}

std::int64_t KvBlockManager::blocks_to_allocate(const SimRequest& r, const std::vector<std::int32_t>& hits,
                                                std::int64_t tokens) const {
  const auto needed = (tokens + block_size_ - 1) / block_size_;
  const auto held = static_cast<std::int64_t>(r.blocks.size());
  const auto have = held == 0 ? static_cast<std::int64_t>(hits.size()) : held;
  std::int64_t hits_in_free_queue = 0;  // a hit taken from the free queue leaves it
  if (held == 0) {
    for (const auto id : hits)
      hits_in_free_queue += in_free_queue(blocks_[static_cast<std::size_t>(id)]) ? 1 : 0;
  }
  return std::max<std::int64_t>(0, needed - have) + hits_in_free_queue;
}

bool KvBlockManager::allocate(SimRequest& r, const std::vector<std::int32_t>& hits, std::int64_t tokens) {
  const auto needed = (tokens + block_size_ - 1) / block_size_;
  const auto held = static_cast<std::int64_t>(r.blocks.size());
  const auto have = held == 0 ? static_cast<std::int64_t>(hits.size()) : held;
  const auto fresh = std::max<std::int64_t>(0, needed - have);
  if (blocks_to_allocate(r, hits, tokens) > free_count_) return false;
  if (held == 0) {
    for (const auto id : hits) {
      auto& b = blocks_[static_cast<std::size_t>(id)];
      if (in_free_queue(b)) take_free(b);
      ++b.refs;
      r.blocks.push_back(id);
    }
    r.cached_blocks = static_cast<std::int64_t>(hits.size());
  }
  for (std::int64_t i = 0; i < fresh; ++i) {
    const auto id = pop_free_front();
    ++blocks_[static_cast<std::size_t>(id)].refs;
    r.blocks.push_back(id);
  }
  return true;
}

void KvBlockManager::cache_blocks(SimRequest& r, std::int64_t full_blocks) {
  full_blocks = std::min({full_blocks, static_cast<std::int64_t>(r.blocks.size()),
                          static_cast<std::int64_t>(r.block_hashes.size())});
  if (!prefix_caching_) {
    r.cached_blocks = std::max(r.cached_blocks, full_blocks);
    return;
  }
  const auto hash_of_block = [this](std::int32_t id) { return hash_of(id); };
  const auto each_holder = [this](const auto& g) {
    for (std::size_t id = 0; id < blocks_.size(); ++id) {
      if (blocks_[id].hashed) g(blocks_[id].hash, static_cast<std::int32_t>(id));
    }
  };
  for (auto i = r.cached_blocks; i < full_blocks; ++i) {
    if (i + kAhead < full_blocks)
      __builtin_prefetch(cached_.home_slot(r.block_hashes[static_cast<std::size_t>(i + kAhead)]));
    const auto id = r.blocks[static_cast<std::size_t>(i)];
    auto& b = blocks_[static_cast<std::size_t>(id)];
    const auto h = r.block_hashes[static_cast<std::size_t>(i)];
    if (b.hashed) continue;
    // Same content computed twice (two requests raced): the first copy stays the cached one.
    if (cached_.insert(h, id, hashed_, hash_of_block, each_holder)) {
      b.hashed = 1;
      b.hash = h;
      ++hashed_;
      ++version_;
    }
  }
  r.cached_blocks = std::max(r.cached_blocks, full_blocks);
}

void KvBlockManager::release(SimRequest& r) {
  for (auto it = r.blocks.rbegin(); it != r.blocks.rend(); ++it) {
    if (r.blocks.rend() - it > kAhead) __builtin_prefetch(&blocks_[static_cast<std::size_t>(it[kAhead])]);
    auto& b = blocks_[static_cast<std::size_t>(*it)];
    if (--b.refs == 0) push_free_back(*it);
  }
  r.blocks.clear();
  r.cached_blocks = 0;
}

void KvBlockManager::reset_prefix_cache() {
  for_each_queued([this](std::int32_t id) {
    auto& b = blocks_[static_cast<std::size_t>(id)];
    if (b.hashed) unhash(b);
  });
}

std::string KvBlockManager::check(const std::vector<const SimRequest*>& holders) const {
  std::vector<std::int32_t> refs(blocks_.size(), 0);
  std::vector<std::int64_t> last_holder(blocks_.size(), -1);  // catches a block held twice by one request
  for (std::size_t h = 0; h < holders.size(); ++h) {
    const auto* r = holders[h];
    for (const auto id : r->blocks) {
      if (id < 0 || static_cast<std::size_t>(id) >= blocks_.size())
        return fmt::format("request {} holds block id {} out of range", r->id, id);
      auto& last = last_holder[static_cast<std::size_t>(id)];
      if (last == static_cast<std::int64_t>(h))
        return fmt::format("request {} holds block {} twice", r->id, id);
      last = static_cast<std::int64_t>(h);
      ++refs[static_cast<std::size_t>(id)];
    }
  }
  std::int64_t free_seen = 0;
  std::string problem;
  for_each_queued([&](std::int32_t id) {
    ++free_seen;
    if (problem.empty() && refs[static_cast<std::size_t>(id)] != 0)
      problem = fmt::format("block {} is in the free queue and held", id);
  });
  if (!problem.empty()) return problem;
  const auto never_used = total_blocks_ - static_cast<std::int64_t>(blocks_.size());
  if (free_seen + never_used != free_count_)
    return fmt::format("free queue holds {} blocks, count says {}", free_seen + never_used, free_count_);
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    const auto& b = blocks_[i];
    const int held = b.refs;
    if (held != refs[i]) return fmt::format("block {} has {} references but {} holders", i, held, refs[i]);
    if (in_free_queue(b) != (held == 0))
      return fmt::format("block {} free-queue flag disagrees with its references", i);
  }
  std::size_t hashed = 0;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    if (!blocks_[i].hashed) continue;
    ++hashed;
    if (cached_.find(blocks_[i].hash, [this](std::int32_t b) { return hash_of(b); }) !=
        static_cast<std::int32_t>(i))
      return fmt::format("block {} holds a hash the prefix cache does not find", i);
  }
  if (hashed != hashed_) return fmt::format("{} blocks hold a hash, count says {}", hashed, hashed_);
  return {};
}

}  // namespace kvb

// The GPU block pool (sim/kv_block_manager) against vLLM's block pool written the plain way: a
// linked free queue in LRU order and a hash map erased on every eviction. The pool's array queue
// with stale entries and its prefix index that is cleaned lazily (sim/block_hash_index) must
// agree with it block for block: the same hits, the same block ids handed out, the same evictions.
#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "sim/block_hash_index.hpp"
#include "sim/kv_block_manager.hpp"

namespace kvb {
namespace {

class ReferencePool {
 public:
  explicit ReferencePool(int blocks) : refs_(blocks, 0), hash_(blocks), where_(blocks) {
    for (int id = 0; id < blocks; ++id) where_[id] = free_.insert(free_.end(), id);
  }
  std::int64_t evictions = 0;
  std::int64_t num_free() const { return static_cast<std::int64_t>(free_.size()); }

  std::vector<std::int32_t> find_prefix(const std::vector<std::uint64_t>& hashes, std::size_t max) const {
    std::vector<std::int32_t> hits;
    for (std::size_t i = 0; i < std::min(max, hashes.size()); ++i) {
      const auto it = cached_.find(hashes[i]);
      if (it == cached_.end()) break;
      hits.push_back(it->second);
    }
    return hits;
  }
  // `hits` only for a request holding no block yet; `needed`: the blocks it must hold after.
  bool allocate(std::vector<std::int32_t>& held, const std::vector<std::int32_t>& hits, std::size_t needed) {
    const std::size_t have = held.empty() ? hits.size() : held.size();
    const auto fresh = needed > have ? needed - have : 0;
    std::size_t hits_free = 0;
    for (const auto id : hits) hits_free += held.empty() && refs_[id] == 0 ? 1 : 0;
    if (fresh + hits_free > free_.size()) return false;
    if (held.empty()) {
      for (const auto id : hits) take(held, id);
    }
    for (std::size_t i = 0; i < fresh; ++i) {
      const auto id = free_.front();
      if (hash_[id]) {  // handing out a cached block evicts it
        cached_.erase(*hash_[id]);
        hash_[id].reset();
        ++evictions;
      }
      take(held, id);
    }
    return true;
  }
  void cache(const std::vector<std::int32_t>& held, const std::vector<std::uint64_t>& hashes,
             std::size_t from, std::size_t to) {
    for (auto i = from; i < to; ++i) {
      const auto id = held[i];
      if (!hash_[id] && cached_.emplace(hashes[i], id).second) hash_[id] = hashes[i];
    }
  }
  void release(std::vector<std::int32_t>& held) {
    for (auto it = held.rbegin(); it != held.rend(); ++it) {
      if (--refs_[*it] == 0) where_[*it] = free_.insert(free_.end(), *it);
    }
    held.clear();
  }
  void reset_prefix_cache() {
    for (const auto id : free_) {
      if (hash_[id]) cached_.erase(*hash_[id]);
      hash_[id].reset();
    }
  }

 private:
  void take(std::vector<std::int32_t>& held, std::int32_t id) {
    if (refs_[id]++ == 0) free_.erase(where_[id]);
    held.push_back(id);
  }
  std::vector<int> refs_;
  std::vector<std::optional<std::uint64_t>> hash_;
  std::vector<std::list<std::int32_t>::iterator> where_;
  std::list<std::int32_t> free_;
  std::unordered_map<std::uint64_t, std::int32_t> cached_;
};

// Conversations over six shared roots: prompts share prefixes, so hits on free and held blocks,
// repeats of evicted content and evictions all happen many times in a small pool. Without fresh
// tails a large pool never evicts, and the free queue piles up entries of blocks hit while free.
std::vector<std::uint64_t> prompt_hashes(Rng& rng, bool fresh_tails) {
  std::vector<std::uint64_t> h;
  std::uint64_t x = rng.below(6) + 1;
  const auto shared = rng.below(10), total = shared + (fresh_tails ? rng.below(8) : 0) + 1;
  for (std::uint64_t i = 0; i < total; ++i) h.push_back(x = hash_mix(x, i < shared ? i : rng.below(1 << 20)));
  return h;
}

// Random requests against both pools: every hit, block handed out, eviction and free count
// compared after each operation; the pool's own audit at the end. Prompts get fresh tails from
// operation `tails_from` on. `evictions`: the reference's.
void drive_both(int blocks, int tails_from, int ops, std::int64_t& evictions) {
  KvBlockManager kv(blocks, 16, true);
  ReferencePool ref(blocks);
  std::vector<SimRequest> live;
  std::vector<std::vector<std::int32_t>> ref_held;
  Rng rng(57);
  for (int op = 0; op < ops; ++op) {
    const auto pick = rng.below(10);
    if (pick < 3 || live.empty()) {  // a new request: its prefix hits, then blocks for its prompt
      SimRequest r;
      r.block_hashes = prompt_hashes(rng, op >= tails_from);
      const auto n = r.block_hashes.size();
      const auto hits = kv.find_prefix(r.block_hashes, static_cast<std::int64_t>(n));
      ASSERT_EQ(hits, ref.find_prefix(r.block_hashes, n)) << "op " << op;
      std::vector<std::int32_t> held;
      const bool ok = kv.allocate(r, hits, static_cast<std::int64_t>(n) * 16);
      ASSERT_EQ(ok, ref.allocate(held, hits, n)) << "op " << op;
      if (!ok) continue;
      ASSERT_EQ(r.blocks, held) << "op " << op;
      live.push_back(std::move(r));
      ref_held.push_back(std::move(held));
    } else if (pick < 6) {  // a step: some of a request's blocks become full and cached
      const auto i = rng.below(live.size());
      auto& r = live[i];
      const auto from = static_cast<std::size_t>(r.cached_blocks);
      const auto to =
          std::max(from, std::min<std::size_t>(rng.below(r.blocks.size() + 1), r.block_hashes.size()));
      kv.cache_blocks(r, static_cast<std::int64_t>(to));
      ref.cache(ref_held[i], r.block_hashes, from, to);
    } else if (pick < 7) {  // decoding past the prompt: one more block
      const auto i = rng.below(live.size());
      auto& r = live[i];
      const auto grown = r.blocks.size() + 1;
      ASSERT_EQ(kv.allocate(r, {}, static_cast<std::int64_t>(grown) * 16),
                ref.allocate(ref_held[i], {}, grown));
      ASSERT_EQ(r.blocks, ref_held[i]) << "op " << op;
    } else {  // a request ends
      const auto i = rng.below(live.size());
      kv.release(live[i]);
      ref.release(ref_held[i]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      ref_held.erase(ref_held.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (op % 5'000 == 4'999) {
      kv.reset_prefix_cache();
      ref.reset_prefix_cache();
    }
    ASSERT_EQ(kv.num_free(), ref.num_free()) << "op " << op;
    ASSERT_EQ(kv.evictions(), ref.evictions) << "op " << op;
  }
  std::vector<const SimRequest*> holders;
  for (const auto& r : live) holders.push_back(&r);
  EXPECT_EQ(kv.check(holders), "");
  evictions = ref.evictions;
}

TEST(KvBlockManager, AgreesBlockForBlockWithALinkedListPool) {
  std::int64_t evictions = -1;
  drive_both(40, 0, 60'000, evictions);  // a pool of 40 blocks turns over thousands of times
  EXPECT_GT(evictions, 10'000);
  // One of 3,000 first evicts nothing, while its queue's stale entries outnumber the live ones and
  // are compacted, then turns over through the compacted queue.
  drive_both(3'000, 30'000, 60'000, evictions);
  EXPECT_GT(evictions, 1'000);
}

// Two hashes with the same 32-bit tag and home slot: the index tells them apart by the block
// table, keeps both, and reuses a slot only when its block has let its hash go.
TEST(BlockHashIndex, KeysSharingATagAndHomeSlotStayApart) {
  std::unordered_map<std::uint64_t, std::uint64_t> seen;  // tag and home slot -> key
  std::uint64_t a = 0, b = 0;
  for (std::uint64_t k = 1; b == 0; ++k) {
    const auto m = hash_mix(0, k);
    const auto [it, fresh] = seen.emplace((m >> 32) << 4 | (m & 15), k);
    if (!fresh) a = it->second, b = k;
  }
  std::vector<std::optional<std::uint64_t>> held(4);  // the block table: block id -> hash held
  const auto hash_of = [&](std::int32_t id) { return held[id] ? &*held[id] : nullptr; };
  const auto each_holder = [&](const auto& g) {
    for (std::int32_t id = 0; id < 4; ++id) {
      if (held[id]) g(*held[id], id);
    }
  };
  BlockHashIndex index(4);
  ASSERT_TRUE(index.insert(a, 0, 0, hash_of, each_holder));
  held[0] = a;
  ASSERT_TRUE(index.insert(b, 1, 1, hash_of, each_holder));
  held[1] = b;
  EXPECT_EQ(index.find(a, hash_of), 0);
  EXPECT_EQ(index.find(b, hash_of), 1);
  EXPECT_FALSE(index.insert(b, 2, 2, hash_of, each_holder));  // block 1 holds it: the first copy stays
  held[0].reset();                                            // block 0 evicted: its entry goes stale
  EXPECT_EQ(index.find(a, hash_of), -1);
  ASSERT_TRUE(index.insert(a, 3, 1, hash_of, each_holder));
  held[3] = a;
  EXPECT_EQ(index.find(a, hash_of), 3);
  EXPECT_EQ(index.find(b, hash_of), 1);
}

// A pool of 2^30 block ids leaves a slot one bit of tag, so most keys share a tag with their
// neighbours: every answer still comes from the block table's full hash. 3,000 keys grow the table
// through rebuilds; evicting every third makes stale entries that later inserts pass or reuse.
TEST(BlockHashIndex, ATagOfOneBitStillFindsEveryKeyByItsBlock) {
  constexpr std::int32_t kKeys = 3'000;
  std::vector<std::optional<std::uint64_t>> held(2 * kKeys);
  const auto hash_of = [&](std::int32_t id) { return held[id] ? &*held[id] : nullptr; };
  std::size_t holders = 0;
  const auto each_holder = [&](const auto& g) {
    for (std::int32_t id = 0; id < 2 * kKeys; ++id) {
      if (held[id]) g(*held[id], id);
    }
  };
  BlockHashIndex index(std::int64_t{1} << 30);
  const auto key = [](std::int32_t i) { return hash_mix(99, static_cast<std::uint64_t>(i)); };
  for (std::int32_t i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(index.insert(key(i), i, holders, hash_of, each_holder));
    held[i] = key(i);
    ++holders;
  }
  for (std::int32_t i = 0; i < kKeys; i += 3) {  // evicted: their entries go stale
    held[i].reset();
    --holders;
  }
  for (std::int32_t i = 0; i < kKeys; i += 3) {  // the same content computed again, in another block
    ASSERT_TRUE(index.insert(key(i), kKeys + i, holders, hash_of, each_holder));
    held[kKeys + i] = key(i);
    ++holders;
  }
  for (std::int32_t i = 0; i < kKeys; ++i) {
    EXPECT_EQ(index.find(key(i), hash_of), i % 3 == 0 ? kKeys + i : i) << "key " << i;
    EXPECT_FALSE(index.insert(key(i), 2 * kKeys - 1, holders, hash_of, each_holder)) << "key " << i;
  }
  EXPECT_EQ(index.find(hash_mix(98, 1), hash_of), -1);  // never inserted
}

}  // namespace
}  // namespace kvb

#pragma once
// The GPU prefix cache's index, block hash -> block id (sim/kv_block_manager.hpp), built so that a
// fleet's replicas touch few cache lines per KV block: each replica has its own, and 16 of them do
// not fit a core's L2 cache, so every line touched is a last-level-cache access.
// - A slot is 4 bytes, sixteen a cache line: the block id + 1 in the low bits (as many as the pool's
//   ids need; 0 is an empty slot) and, above them, the top bits of the hash's mix as a tag. The
//   block table holds the full hash, and a lookup checks it there (its caller reads that block next
//   anyway), so a tag shared by two hashes costs a read, never a wrong answer.
// - An evicted block's entry is not erased (erasing cost a probe per eviction, the simulator's
//   single hottest access): it goes stale, since the block no longer holds the hash, and a lookup
//   passes over it. A stale slot is reused by a later insert that meets it, and once half the slots
//   are used the table is rebuilt from the blocks that hold a hash, at 3 slots or more per holder.
// Linear probing over a power-of-two table; a slot is only ever emptied by a rebuild, so every
// holder's slot stays reachable from its hash's home slot.
#include <cstdint>
#include <vector>

#include "core/rng.hpp"

namespace kvb {

class BlockHashIndex {
 public:
  // For block ids 0 .. blocks - 1 (blocks < 2^31, as block ids are 32-bit).
  explicit BlockHashIndex(std::int64_t blocks) : slots_(kMinSlots, 0), mask_(kMinSlots - 1) {
    while (id_bits_ < 31 && (std::int64_t{1} << id_bits_) <= blocks) ++id_bits_;
    id_mask_ = (std::uint32_t{1} << id_bits_) - 1;
  }

  // The block holding `key`, or -1. `hash_of(id)`: a pointer to the hash block `id` holds, or
  // nullptr when it holds none.
  template <typename HashOf>
  std::int32_t find(std::uint64_t key, const HashOf& hash_of) const {
    const auto m = hash_mix(0, key);
    const auto tag = tag_of(m);
    for (std::size_t i = m & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s == 0) return -1;
      if ((s & ~id_mask_) != tag) continue;
      const auto* h = hash_of(id_of(s));
      if (h != nullptr && *h == key) return id_of(s);
    }
  }

  // Where a find or insert of `key` starts probing: its caller prefetches it when a run of a
  // request's blocks is known ahead (a fleet's replicas hold a table each, beyond the CPU caches).
  // The address, not a prefetching member: GCC deems a function that only prefetches free of side
  // effects and drops calls to it.
  const void* home_slot(std::uint64_t key) const { return &slots_[hash_mix(0, key) & mask_]; }

  // Records that block `id` is about to hold `key`, unless a block already holds it (false then).
  // `holders`: how many blocks hold a hash now, what a rebuild keeps.
  template <typename HashOf, typename EachHolder>
  bool insert(std::uint64_t key, std::int32_t id, std::size_t holders, const HashOf& hash_of,
              const EachHolder& each_holder) {
    if ((used_ + 1) * 2 > slots_.size()) rebuild(holders, each_holder);
    const auto m = hash_mix(0, key);
    const auto tag = tag_of(m);
    std::size_t reuse = slots_.size();  // the first stale slot met, if any
    std::size_t i = m & mask_;
    for (; slots_[i] != 0; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if ((s & ~id_mask_) != tag) continue;
      const auto* h = hash_of(id_of(s));
      if (h != nullptr && *h == key) return false;
      if ((h == nullptr || tag_of(hash_mix(0, *h)) != tag) && reuse == slots_.size()) reuse = i;
    }
    if (reuse == slots_.size()) {
      reuse = i;
      ++used_;
    }
    slots_[reuse] = slot_of(tag, id);
    return true;
  }

 private:
  using Slot = std::uint32_t;  // tag | (id + 1); 0: empty
  static constexpr std::size_t kMinSlots = 16;
  std::uint32_t tag_of(std::uint64_t mixed) const {
    return static_cast<std::uint32_t>(mixed >> 32) & ~id_mask_;
  }
  Slot slot_of(std::uint32_t tag, std::int32_t id) const { return tag | static_cast<std::uint32_t>(id + 1); }
  std::int32_t id_of(Slot s) const { return static_cast<std::int32_t>(s & id_mask_) - 1; }

  // Empties the table (at least 3 slots per holder, so that a sixth of it fills before the next
  // rebuild) and inserts each holder again: each_holder(g) calls g(key, id) once per holder.
  template <typename EachHolder>
  void rebuild(std::size_t holders, const EachHolder& each_holder) {
    std::size_t n = slots_.size();
    while ((holders + 1) * 3 > n) n *= 2;
    slots_.assign(n, 0);
    mask_ = n - 1;
    used_ = 0;
    each_holder([this](std::uint64_t key, std::int32_t id) {
      const auto m = hash_mix(0, key);
      std::size_t i = m & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = slot_of(tag_of(m), id);
      ++used_;
    });
  }

  std::vector<Slot> slots_;
  std::size_t mask_;
  std::size_t used_ = 0;  // slots holding an entry, live or stale
  int id_bits_ = 1;       // the low bits of a slot that hold id + 1
  std::uint32_t id_mask_ = 1;
};

}  // namespace kvb

#pragma once
// The GPU prefix cache's index, block hash -> block id (sim/kv_block_manager.hpp), built so that a
// fleet's replicas touch few cache lines per KV block: each replica has its own, and 16 of them do
// not fit a core's L2 cache, so every line touched is a last-level-cache access.
// - A slot is 8 bytes: a 32-bit tag of the hash and the block id. The block table holds the full
//   hash, and a lookup checks it there (its caller reads that block next anyway).
// - An evicted block's entry is not erased (erasing cost a probe per eviction, the simulator's
//   single hottest access): it goes stale, since the block no longer holds the hash, and a lookup
//   passes over it. A stale slot is reused by a later insert that meets it, and once half the slots
//   are used the table is rebuilt from the blocks that hold a hash.
// Linear probing over a power-of-two table; a slot is only ever emptied by a rebuild, so every
// holder's slot stays reachable from its hash's home slot.
#include <cstdint>
#include <vector>

#include "core/rng.hpp"

namespace kvb {

class BlockHashIndex {
 public:
  BlockHashIndex() : slots_(kMinSlots), mask_(kMinSlots - 1) {}

  // The block holding `key`, or -1. `hash_of(id)`: a pointer to the hash block `id` holds, or
  // nullptr when it holds none.
  template <typename HashOf>
  std::int32_t find(std::uint64_t key, const HashOf& hash_of) const {
    const auto m = hash_mix(0, key);
    const auto tag = tag_of(m);
    for (std::size_t i = m & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.id < 0) return -1;
      if (s.tag != tag) continue;
      const auto* h = hash_of(s.id);
      if (h != nullptr && *h == key) return s.id;
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
    for (; slots_[i].id >= 0; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.tag != tag) continue;
      const auto* h = hash_of(s.id);
      if (h != nullptr && *h == key) return false;
      if ((h == nullptr || tag_of(hash_mix(0, *h)) != tag) && reuse == slots_.size()) reuse = i;
    }
    if (reuse == slots_.size()) {
      reuse = i;
      ++used_;
    }
    slots_[reuse] = Slot{tag, id};
    return true;
  }

 private:
  struct Slot {
    std::uint32_t tag = 0;
    std::int32_t id = -1;  // -1: empty
  };
  static constexpr std::size_t kMinSlots = 16;
  static std::uint32_t tag_of(std::uint64_t mixed) { return static_cast<std::uint32_t>(mixed >> 32); }

  // Empties the table (at least 4 slots per holder, so that a quarter of it fills before the next
  // rebuild) and inserts each holder again: each_holder(g) calls g(key, id) once per holder.
  template <typename EachHolder>
  void rebuild(std::size_t holders, const EachHolder& each_holder) {
    std::size_t n = slots_.size();
    while ((holders + 1) * 4 > n) n *= 2;
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    used_ = 0;
    each_holder([this](std::uint64_t key, std::int32_t id) {
      const auto m = hash_mix(0, key);
      std::size_t i = m & mask_;
      while (slots_[i].id >= 0) i = (i + 1) & mask_;
      slots_[i] = Slot{tag_of(m), id};
      ++used_;
    });
  }

  std::vector<Slot> slots_;
  std::size_t mask_;
  std::size_t used_ = 0;  // slots holding an entry, live or stale
};

}  // namespace kvb

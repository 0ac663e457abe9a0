#pragma once
// An open-addressing hash map from 64-bit block hashes to small values: linear probing over a
// power-of-two table at most half full, backward-shift deletion (no tombstones). The CPU tier
// does a lookup per KV block; std::unordered_map's node per entry cost it about half its run time.
// (The GPU prefix cache has its own index, sim/block_hash_index.hpp.)
#include <cstdint>
#include <utility>
#include <vector>

#include "core/rng.hpp"

namespace kvb {

template <typename V>
class FlatHashMap {
 public:
  FlatHashMap() { rehash(16); }

  std::size_t size() const { return size_; }

  V* find(std::uint64_t key) {
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      auto& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  const V* find(std::uint64_t key) const { return const_cast<FlatHashMap*>(this)->find(key); }
  bool contains(std::uint64_t key) const { return find(key) != nullptr; }

  // Inserts when absent; returns false (and leaves the value) when present.
  bool emplace(std::uint64_t key, const V& value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    std::size_t i = slot(key);
    for (; slots_[i].used; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return false;
    }
    slots_[i] = Slot{key, value, true};
    ++size_;
    return true;
  }

  bool erase(std::uint64_t key) {
    std::size_t i = slot(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
    }
    // Shift later members of the probe run back so lookups never stop at a hole early.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const std::size_t home = slot(slots_[j].key);
      const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        slots_[hole].key = slots_[j].key;
        slots_[hole].value = std::move(slots_[j].value);
        hole = j;
      }
    }
    slots_[hole].used = false;
    --size_;
    return true;
  }

  template <typename F>
  void for_each(F&& f) const {
    for (const auto& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }

 private:
  // Key, value and flag side by side: a probe reads one cache line, not one per array (a fleet's
  // replicas hold a CPU tier each, far beyond the CPU caches, so every miss counts).
  struct Slot {
    std::uint64_t key = 0;
    V value{};
    bool used = false;
  };

  std::size_t slot(std::uint64_t key) const { return static_cast<std::size_t>(hash_mix(0, key)) & mask_; }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    size_ = 0;
    for (auto& s : old) {
      if (s.used) emplace(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kvb

#pragma once
// An open-addressing hash map from 64-bit block hashes to small values: linear probing over a
// power-of-two table at most half full, backward-shift deletion (no tombstones). The prefix
// cache and the CPU tier do a lookup per KV block, so this is the simulator's hottest structure;
// std::unordered_map's node per entry cost it about half its run time.
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
      if (!used_[i]) return nullptr;
      if (keys_[i] == key) return &values_[i];
    }
  }
  const V* find(std::uint64_t key) const { return const_cast<FlatHashMap*>(this)->find(key); }
  bool contains(std::uint64_t key) const { return find(key) != nullptr; }

  // Inserts when absent; returns false (and leaves the value) when present.
  bool emplace(std::uint64_t key, const V& value) {
    if ((size_ + 1) * 2 > keys_.size()) rehash(keys_.size() * 2);
    std::size_t i = slot(key);
    for (; used_[i]; i = (i + 1) & mask_) {
      if (keys_[i] == key) return false;
    }
    used_[i] = 1;
    keys_[i] = key;
    values_[i] = value;
    ++size_;
    return true;
  }

  bool erase(std::uint64_t key) {
    std::size_t i = slot(key);
    for (;; i = (i + 1) & mask_) {
      if (!used_[i]) return false;
      if (keys_[i] == key) break;
    }
    // Shift later members of the probe run back so lookups never stop at a hole early.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_; used_[j]; j = (j + 1) & mask_) {
      const std::size_t home = slot(keys_[j]);
      const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys_[hole] = keys_[j];
        values_[hole] = std::move(values_[j]);
        hole = j;
      }
    }
    used_[hole] = 0;
    --size_;
    return true;
  }

  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (used_[i]) f(keys_[i], values_[i]);
    }
  }

 private:
  std::size_t slot(std::uint64_t key) const { return static_cast<std::size_t>(hash_mix(0, key)) & mask_; }

  void rehash(std::size_t capacity) {
    std::vector<std::uint64_t> keys(capacity);
    std::vector<V> values(capacity);
    std::vector<std::uint8_t> used(capacity, 0);
    keys.swap(keys_);
    values.swap(values_);
    used.swap(used_);
    mask_ = capacity - 1;
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (used[i]) emplace(keys[i], values[i]);
    }
  }

  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::vector<std::uint8_t> used_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kvb

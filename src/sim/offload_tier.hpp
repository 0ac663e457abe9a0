#pragma once
// vLLM's native CPU tier (vllm/v1/kv_offload/cpu/spec.py): a fixed number of CPU blocks keyed by block
// hash. A store reserves room first (evicting by policy) and becomes visible to lookups when
// its transfer completes; blocks being written or loaded are pinned and cannot be evicted.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/eviction_policy.hpp"
#include "sim/flat_hash_map.hpp"

namespace kvb {

class OffloadTier {
 public:
  OffloadTier(std::int64_t capacity_blocks, EvictionKind policy, int store_threshold);

  std::int64_t capacity() const { return capacity_; }
  std::int64_t size() const { return static_cast<std::int64_t>(entries_.size()); }
  bool ready(std::uint64_t hash) const;    // stored and its write completed
  bool present(std::uint64_t hash) const;  // stored or being written
  bool loading(std::uint64_t hash) const;  // pinned by a load in flight

  // Counts a sighting of each block; returns those to store now: absent from the tier and seen
  // at least `store_threshold` times. Blocks already present are touched.
  std::vector<std::uint64_t> select_for_store(const std::vector<std::uint64_t>& candidates);
  // Reserves room for `hashes` in order, evicting unpinned blocks; returns the prefix that fit.
  std::vector<std::uint64_t> reserve(const std::vector<std::uint64_t>& hashes);
  void store_done(const std::vector<std::uint64_t>& hashes);

  // A load of these blocks starts (hit: touched and pinned) or ends (unpinned).
  void pin_for_load(const std::vector<std::uint64_t>& hashes);
  void unpin(const std::vector<std::uint64_t>& hashes);
  // A write of these blocks to the secondary tier starts or ends: they may not be evicted while it
  // reads them (vLLM's TieringOffloadingManager.complete_store takes primary.prepare_read, a
  // ref_cnt), but they are no load in flight (loading() stays false).
  void hold(const std::vector<std::uint64_t>& hashes);
  void release(const std::vector<std::uint64_t>& hashes);

  std::int64_t evictions() const { return evictions_; }
  // Changes whenever a block becomes ready or leaves the tier.
  std::uint64_t version() const { return version_; }
  // Empty when consistent (size within capacity, policy agrees with the entries); else the text of
  // the CheckFailed error ServingEngine throws.
  std::string check() const;

 private:
  struct Entry {
    bool ready = false;
    int pins = 0;
    int holds = 0;  // writes to the secondary tier reading it
  };
  std::int64_t capacity_;
  int store_threshold_;
  std::unique_ptr<EvictionPolicy> policy_;
  FlatHashMap<Entry> entries_;
  std::unordered_map<std::uint64_t, int> sightings_;  // only kept when store_threshold > 1
  std::int64_t evictions_ = 0;
  std::uint64_t version_ = 0;
};

}  // namespace kvb

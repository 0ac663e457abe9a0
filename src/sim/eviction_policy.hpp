#pragma once
// Which CPU-tier block goes when a store needs room: LRU (vLLM's default) or ARC
// (`eviction_policy: arc` in kv_connector_extra_config). Policies see hashes only; the tier
// says which ones are pinned (being loaded or written) and may not go.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "server/server_spec.hpp"

namespace kvb {

class EvictionPolicy {
 public:
  virtual ~EvictionPolicy() = default;
  virtual void inserted(std::uint64_t hash) = 0;  // a new block entered the tier
  virtual void touched(std::uint64_t hash) = 0;   // a hit
  // The block to evict, skipping pinned ones; nothing when every block is pinned.
  virtual std::optional<std::uint64_t> victim(const std::function<bool(std::uint64_t)>& pinned) = 0;
  virtual void erased(std::uint64_t hash) = 0;  // the victim left the tier
  virtual std::size_t size() const = 0;         // resident blocks tracked
};

// `kind`: server/server_spec.hpp; `capacity` in blocks (ARC adapts against it).
std::unique_ptr<EvictionPolicy> make_eviction_policy(EvictionKind kind, std::int64_t capacity);

}  // namespace kvb

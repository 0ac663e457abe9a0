#include "sim/offload_tier.hpp"

#include <fmt/format.h>

namespace kvb {

OffloadTier::OffloadTier(std::int64_t capacity_blocks, EvictionKind policy, int store_threshold)
    : capacity_(capacity_blocks),
      store_threshold_(store_threshold),
      policy_(make_eviction_policy(policy, capacity_blocks)) {}

bool OffloadTier::ready(std::uint64_t hash) const {
  const auto* e = entries_.find(hash);
  return e != nullptr && e->ready;
}

bool OffloadTier::loading(std::uint64_t hash) const {
  const Entry* e = entries_.find(hash);
  return e != nullptr && e->pins > 0;
}

bool OffloadTier::present(std::uint64_t hash) const { return entries_.contains(hash); }

std::vector<std::uint64_t> OffloadTier::select_for_store(const std::vector<std::uint64_t>& candidates) {
  std::vector<std::uint64_t> out;
  for (const auto h : candidates) {
    if (const auto* e = entries_.find(h)) {
      if (e->ready) policy_->touched(h);
      continue;
    }
    if (store_threshold_ > 1 && ++sightings_[h] < store_threshold_) continue;
    out.push_back(h);
  }
  return out;
}

std::vector<std::uint64_t> OffloadTier::reserve(const std::vector<std::uint64_t>& hashes) {
  std::vector<std::uint64_t> accepted;
  const auto pinned = [this](std::uint64_t h) {
    const auto* e = entries_.find(h);
    return e->pins > 0 || e->holds > 0 || !e->ready;
  };
  for (const auto h : hashes) {
    if (entries_.contains(h)) continue;
    if (size() >= capacity_) {
      const auto v = capacity_ > 0 ? policy_->victim(pinned) : std::nullopt;
      if (!v) break;  // everything is in flight: the rest of this store is dropped
      policy_->erased(*v);
      entries_.erase(*v);
      ++evictions_;
      ++version_;
    }
    entries_.emplace(h, Entry{});
    policy_->inserted(h);
    accepted.push_back(h);
  }
  return accepted;
}

void OffloadTier::store_done(const std::vector<std::uint64_t>& hashes) {
  for (const auto h : hashes) {
    auto* e = entries_.find(h);
    if (e != nullptr && !e->ready) {
      e->ready = true;
      ++version_;
    }
  }
}

void OffloadTier::pin_for_load(const std::vector<std::uint64_t>& hashes) {
  for (const auto h : hashes) {
    auto* e = entries_.find(h);
    if (e == nullptr) continue;
    ++e->pins;
    policy_->touched(h);
  }
}

void OffloadTier::unpin(const std::vector<std::uint64_t>& hashes) {
  for (const auto h : hashes) {
    auto* e = entries_.find(h);
    if (e != nullptr && e->pins > 0) --e->pins;
  }
}

void OffloadTier::hold(const std::vector<std::uint64_t>& hashes) {
  for (const auto h : hashes) {
    if (auto* e = entries_.find(h)) ++e->holds;
  }
}

void OffloadTier::release(const std::vector<std::uint64_t>& hashes) {
  for (const auto h : hashes) {
    auto* e = entries_.find(h);
    if (e != nullptr && e->holds > 0) --e->holds;
  }
}

std::string OffloadTier::check() const {
  if (size() > capacity_) return fmt::format("CPU tier holds {} blocks, capacity {}", size(), capacity_);
  if (policy_->size() != entries_.size()) {
    return fmt::format("eviction policy tracks {} blocks, tier holds {}", policy_->size(), entries_.size());
  }
  return {};
}

}  // namespace kvb

#include "sim/eviction_policy.hpp"

#include <algorithm>
#include <list>

#include "core/errors.hpp"
#include "sim/flat_hash_map.hpp"

namespace kvb {
namespace {

// An ordered set of hashes, least recent at the front, with O(1) moves.
class RecencyList {
 public:
  bool contains(std::uint64_t h) const { return where_.contains(h); }
  void push_back(std::uint64_t h) {
    const auto it = order_.insert(order_.end(), h);
    if (auto* w = where_.find(h)) {  // already listed: keep one entry, at the back
      order_.erase(*w);
      *w = it;
    } else {
      where_.emplace(h, it);
    }
  }
  void erase(std::uint64_t h) {
    const auto* w = where_.find(h);
    if (w == nullptr) return;
    order_.erase(*w);
    where_.erase(h);
  }
  void move_to_back(std::uint64_t h) {
    if (const auto* w = where_.find(h)) order_.splice(order_.end(), order_, *w);
  }
  std::optional<std::uint64_t> first_unpinned(const std::function<bool(std::uint64_t)>& pinned) const {
    for (const auto h : order_) {
      if (!pinned(h)) return h;
    }
    return std::nullopt;
  }
  std::optional<std::uint64_t> front() const {
    return order_.empty() ? std::nullopt : std::optional<std::uint64_t>(order_.front());
  }
  std::size_t size() const { return order_.size(); }

 private:
  std::list<std::uint64_t> order_;
  FlatHashMap<std::list<std::uint64_t>::iterator> where_;
};

class LruPolicy final : public EvictionPolicy {
 public:
  void inserted(std::uint64_t h) override { list_.push_back(h); }
  void touched(std::uint64_t h) override { list_.move_to_back(h); }
  std::optional<std::uint64_t> victim(const std::function<bool(std::uint64_t)>& pinned) override {
    return list_.first_unpinned(pinned);
  }
  void erased(std::uint64_t h) override { list_.erase(h); }
  std::size_t size() const override { return list_.size(); }

 private:
  RecencyList list_;
};

// Megiddo and Modha's ARC: T1 holds blocks seen once, T2 blocks seen again; ghost lists B1 and
// B2 remember recent evictions and move the target size p of T1 toward whichever would have hit.
class ArcPolicy final : public EvictionPolicy {
 public:
  explicit ArcPolicy(std::int64_t capacity) : c_(static_cast<double>(std::max<std::int64_t>(capacity, 1))) {}

  void inserted(std::uint64_t h) override {
    if (b1_.contains(h)) {
      p_ = std::min(c_, p_ + std::max(1.0, ratio(b2_, b1_)));
      b1_.erase(h);
      t2_.push_back(h);
    } else if (b2_.contains(h)) {
      p_ = std::max(0.0, p_ - std::max(1.0, ratio(b1_, b2_)));
      b2_.erase(h);
      t2_.push_back(h);
    } else {
      t1_.push_back(h);
    }
    trim_ghosts();
  }
  void touched(std::uint64_t h) override {
    if (t1_.contains(h)) {
      t1_.erase(h);
      t2_.push_back(h);
    } else if (t2_.contains(h)) {
      t2_.move_to_back(h);
    }
  }
  std::optional<std::uint64_t> victim(const std::function<bool(std::uint64_t)>& pinned) override {
    const bool prefer_t1 = static_cast<double>(t1_.size()) > p_ || t2_.size() == 0;
    auto first = prefer_t1 ? t1_.first_unpinned(pinned) : t2_.first_unpinned(pinned);
    if (first) return first;
    return prefer_t1 ? t2_.first_unpinned(pinned) : t1_.first_unpinned(pinned);
  }
  void erased(std::uint64_t h) override {
    if (t1_.contains(h)) {
      t1_.erase(h);
      b1_.push_back(h);
    } else if (t2_.contains(h)) {
      t2_.erase(h);
      b2_.push_back(h);
    }
    trim_ghosts();
  }
  std::size_t size() const override { return t1_.size() + t2_.size(); }

 private:
  static double ratio(const RecencyList& a, const RecencyList& b) {
    return static_cast<double>(a.size()) / static_cast<double>(std::max<std::size_t>(b.size(), 1));
  }
  void trim_ghosts() {
    const auto cap = static_cast<std::size_t>(c_);
    while (b1_.size() > cap) b1_.erase(*b1_.front());
    while (b2_.size() > cap) b2_.erase(*b2_.front());
  }
  double c_;
  double p_ = 0;
  RecencyList t1_, t2_, b1_, b2_;
};

}  // namespace

std::unique_ptr<EvictionPolicy> make_eviction_policy(EvictionKind kind, std::int64_t capacity) {
  if (kind == EvictionKind::kArc) return std::make_unique<ArcPolicy>(capacity);
  return std::make_unique<LruPolicy>();
}

}  // namespace kvb

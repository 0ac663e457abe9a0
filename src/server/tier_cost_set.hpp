#pragma once
// The mechanisms by which an enabled CPU tier costs a vLLM server, and a set of them: part of the
// server's description (scenario key `tier-costs`); what each does and which releases have it are
// the simulator's (sim/tier_costs.hpp).

namespace kvb {

enum class TierCost {
  kFabricSharing,    // PCIe-only GPUs at TP > 1: tier copies and NCCL's all-reduces share the links
  kConnectorCpu,     // the connector's per-block work before each forward pass
  kKernelSms,        // link-method kernel: the copy kernel's SMs slow the steps it overlaps
  kStoreVisibility,  // <= 0.20: a request's stored blocks are hits for others only once it finished
  kLoadConvoy,       // >= 0.15: a request whose CPU hits are being loaded for another waits for it
  kLoadPolling,      // a finished load is seen after the step it finished in
  kDecodeStores,     // >= 0.18: blocks filled by decoding are stored too, not only the prompt's
  kLmcacheSync,      // --kv-offloading-backend lmcache: LMCache copies inside the step, not beside it
  kPreemptFlush,     // >= 0.14: a step that preempts a storing request waits for its stores to end
  kFinishHold,       // <= 0.20: a finished request that stored keeps its blocks until the worker says so
};
inline constexpr int kTierCostCount = 10;

// A set of mechanisms, all on by default.
class TierCostSet {
 public:
  static TierCostSet all() { return TierCostSet((1u << kTierCostCount) - 1); }
  static TierCostSet none() { return TierCostSet(0); }
  bool on(TierCost c) const { return (bits_ >> static_cast<unsigned>(c)) & 1u; }
  TierCostSet with(TierCost c) const { return TierCostSet(bits_ | (1u << static_cast<unsigned>(c))); }
  TierCostSet without(TierCost c) const { return TierCostSet(bits_ & ~(1u << static_cast<unsigned>(c))); }
  bool operator==(const TierCostSet& o) const { return bits_ == o.bits_; }

 private:
  explicit TierCostSet(unsigned bits) : bits_(bits) {}
  unsigned bits_;
};

}  // namespace kvb

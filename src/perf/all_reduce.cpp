#include "perf/all_reduce.hpp"

namespace kvb {
namespace {

// vllm/distributed/device_communicators/custom_all_reduce.py: CustomAllreduce's default max_size
// (8192 * 1024 bytes; should_custom_ar takes buffers strictly below it). Where Hopper's symmetric
// memory is enabled, 6 and 8 ranks cap it lower (all_reduce_utils.py CUSTOM_ALL_REDUCE_MAX_SIZES)
// and torch's symmetric-memory all-reduce takes the rest: not modelled, the two-shot stands for it.
constexpr double kCustomMaxBytes = 8192.0 * 1024;
// csrc/custom_all_reduce.cuh CustomAllreduce::allreduce: one-shot below these on a fully connected
// fabric of up to 4 and up to 8 ranks.
constexpr double kOneShotMaxBytes4 = 512.0 * 1024;
constexpr double kOneShotMaxBytes8 = 256.0 * 1024;

bool custom_all_reduce_serves(const AllReduceFabric& f, double message_bytes) {
  const bool supported = f.ranks == 2 || f.ranks == 4 || f.ranks == 6 || f.ranks == 8;
  // "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs".
  const bool fully_connected = f.kind != GpuLinkKind::kPcie;
  return supported && (f.ranks == 2 || fully_connected) && message_bytes < kCustomMaxBytes;
}

// Synchronisations paid, and the buffers each rank moves over its link. One-shot: its two barriers
// (start_sync, end_sync) around one pass that reads the whole buffer from each of the n - 1 peers.
// Two-shot moves the ring's bytes (reduce-scatter, then all-gather); its fixed cost is taken as the
// ring's 2 (n - 1) steps, which the dense TP 4 runs, whose decodes are two-shot buffers, were fitted
// with (docs/accuracy.md): no measurement of its own on an H100 was found.
struct Cost {
  double syncs = 0, buffers = 0;
};

Cost cost_of(AllReduceAlgorithm a, int n) {
  switch (a) {
    case AllReduceAlgorithm::kRing:
    case AllReduceAlgorithm::kTwoShot:
      return {2.0 * (n - 1), 2.0 * (n - 1) / n};
    case AllReduceAlgorithm::kOneShot:
      return {2.0, static_cast<double>(n - 1)};
    case AllReduceAlgorithm::kNone:
      break;
  }
  return {};
}

}  // namespace

std::string to_string(AllReduceAlgorithm a) {
  switch (a) {
    case AllReduceAlgorithm::kRing:
      return "NCCL ring";
    case AllReduceAlgorithm::kOneShot:
      return "custom one-shot";
    case AllReduceAlgorithm::kTwoShot:
      return "custom two-shot";
    case AllReduceAlgorithm::kNone:
      break;
  }
  return "none";
}

AllReduceAlgorithm all_reduce_algorithm(const AllReduceFabric& f, double message_bytes) {
  if (f.ranks <= 1 || f.gbps <= 0 || message_bytes <= 0) return AllReduceAlgorithm::kNone;
  if (!custom_all_reduce_serves(f, message_bytes)) return AllReduceAlgorithm::kRing;
  if (f.ranks == 2) return AllReduceAlgorithm::kOneShot;
  const double one_shot_max = f.ranks <= 4 ? kOneShotMaxBytes4 : kOneShotMaxBytes8;
  return message_bytes < one_shot_max ? AllReduceAlgorithm::kOneShot : AllReduceAlgorithm::kTwoShot;
}

double all_reduce_bandwidth_seconds(const AllReduceFabric& f, double message_bytes) {
  const Cost c = cost_of(all_reduce_algorithm(f, message_bytes), f.ranks);
  return c.buffers * message_bytes / (f.gbps * 1e9);
}

double all_reduce_seconds(const AllReduceFabric& f, double message_bytes) {
  const Cost c = cost_of(all_reduce_algorithm(f, message_bytes), f.ranks);
  if (c.syncs == 0) return 0;
  return c.buffers * message_bytes / (f.gbps * 1e9) + c.syncs * f.latency_us * 1e-6;
}

}  // namespace kvb

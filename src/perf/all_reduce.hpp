#pragma once
// One tensor-parallel all-reduce as vLLM runs it (vllm/distributed/device_communicators/
// cuda_communicator.py all_reduce: its custom all-reduce where should_custom_ar accepts the
// buffer, else NCCL through pynccl), and what it costs over the GPU fabric.
#include <string>

#include "catalog/hardware_spec.hpp"

namespace kvb {

enum class AllReduceAlgorithm {
  kNone,     // one rank, or the fabric is unknown
  kRing,     // NCCL's ring: reduce-scatter then all-gather, 2 (n - 1) steps
  kOneShot,  // vLLM's cross_device_reduce_1stage: every rank reads the whole buffer from each peer
  kTwoShot,  // vLLM's cross_device_reduce_2stage: reduce-scatter then all-gather through peers' memory
};
std::string to_string(AllReduceAlgorithm a);

// The fabric one all-reduce crosses: `gbps` per direction per GPU already derated to what an
// all-reduce reaches, `latency_us` one synchronisation over it (a ring step, a custom barrier).
struct AllReduceFabric {
  int ranks = 1;
  GpuLinkKind kind = GpuLinkKind::kNvlink;
  double gbps = 0;  // 0: unknown
  double latency_us = 0;
};

// vLLM's custom all-reduce serves 2, 4, 6 or 8 ranks on one node (CustomAllreduce.
// _SUPPORTED_WORLD_SIZES), on more than 2 only where every GPU reaches every other over NVLink
// (or xGMI), and buffers under its 8 MiB (max_size). Within it the kernel is one-shot at 2 ranks
// and below 512 KiB at 4 (256 KiB at 6 and 8), two-shot above (csrc/custom_all_reduce.cuh).
AllReduceAlgorithm all_reduce_algorithm(const AllReduceFabric& f, double message_bytes);

// Seconds one all-reduce of `message_bytes` takes: its synchronisations' latency plus the bytes each
// rank moves over its link. Ring and two-shot: 2 (n - 1) steps and 2 (n - 1) / n of the buffer;
// one-shot: two barriers (start_sync, end_sync), whatever n, and (n - 1) buffers read from the
// peers. The same at 2 ranks whichever runs.
double all_reduce_seconds(const AllReduceFabric& f, double message_bytes);
// Its bytes part alone (what stretches when the fabric's links carry other traffic).
double all_reduce_bandwidth_seconds(const AllReduceFabric& f, double message_bytes);

}  // namespace kvb

#pragma once
// The native OffloadingConnector's one tier on a file system (kv-offloading-medium: file), as llm-d's
// file-system connector runs it (github llm-d/llm-d-kv-cache, kv_connectors/llmd_fs_backend; wheel 0.19
// for vLLM 0.19, read at f8ed26d):
//   * a file per offloaded block and rank; the scheduler's lookup is a path check and complete_store
//     does nothing (manager.py), so a stored block is a hit once its file is written, not once its
//     request has finished: store-visibility does not apply;
//   * no capacity or eviction of its own: kv-offloading-size is the room the volume gives it;
//   * a store goes GPU -> a per-thread pinned staging buffer -> the file, a load the reverse, on a
//     pool of I/O threads (csrc/storage/storage_offload.cpp, backends/fs_io/file_io.cpp): the disk's
//     rates bound both (the PCIe hop is tens of times faster and pipelined over the threads), so the
//     tier's copies run at the disk's rates, shared by the ranks, and hold the GPU's link too little
//     to slow the all-reduces: fabric-sharing does not apply;
//   * the write queue holds at most max_write_queued_seconds of writes; stores past it are dropped.
#include <optional>

#include "perf/link_curve.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_time.hpp"

namespace kvb {

// llmd_fs_backend's DEFAULT_MAX_WRITE_QUEUED_SECONDS (worker.py): writes queued past this many
// seconds of the pool's work are dropped (storage_offload.cpp, async_store_gpu_blocks).
inline constexpr double kFileWriteQueueSeconds = 10.0;
inline constexpr auto kFileWriteQueue =
    std::chrono::duration_cast<SimDuration>(std::chrono::duration<double>(kFileWriteQueueSeconds));

struct FileTierFigures {
  double read_bytes_per_s = 0;  // the node's file system, all ranks together
  double write_bytes_per_s = 0;
  bool stated = true;  // the rates as stated, not a kvbench storage measurement
};

// The scenario's file tier; none for the CPU medium or an empty tier (kv-offloading-size 0, a
// sweep's no-tier point). UsageError, one line naming the scenario and the keys, for a file tier
// the simulator does not run: without kv-offloading-size, with a secondary tier, under another
// backend, without its rates, with a per-chunk latency, or over replicas (their files are shared).
std::optional<FileTierFigures> file_tier_figures(const Scenario& s);

// The tier's copies as a link per rank: each rank's share of the node's rates, no per-copy cost
// (the connector hands files to its thread pool; no cudaMemcpyAsync per block from the worker).
LinkProfile file_tier_link(const FileTierFigures& f, int world_size, const LinkProfile& host_link);

}  // namespace kvb

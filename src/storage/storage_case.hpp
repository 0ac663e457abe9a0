#pragma once
// What `kvbench storage` measures: KV chunks written from and read back into host memory, in the
// file layouts the engines use (docs/storage.md), buffered or with O_DIRECT, by threads issuing
// pread/pwrite or by io_uring.
#include <cstdint>
#include <string>
#include <vector>

namespace kvb {

// file-per-chunk: one file per KV chunk (vLLM's file-system tier, LMCache local_disk);
// per-rank-file: one preallocated file per rank, chunk i at offset i x chunk (vLLM's
// SimpleCPUOffloadConnector disk backend, vllm-project/vllm PR #49644).
enum class StorageLayout { kFilePerChunk, kPerRankFile };
enum class IoMode { kBuffered, kDirect };
enum class IoEngine { kThreads, kIoUring };

std::string to_string(StorageLayout l);
std::string to_string(IoMode m);
std::string to_string(IoEngine e);
// Throw UsageError naming `what` and the accepted spellings.
StorageLayout parse_storage_layout(const std::string& text, const std::string& what);
IoMode parse_io_mode(const std::string& text, const std::string& what);
IoEngine parse_io_engine(const std::string& text, const std::string& what);

// O_DIRECT needs buffers, offsets and lengths aligned to the logical block; 4 KiB covers every
// common device, so every chunk is a multiple of it.
inline constexpr std::uint64_t kChunkAlign = 4096;
// No vLLM chunk is a GiB: a bound that keeps one buffer per chunk plausible.
inline constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{1} << 30;
inline constexpr int kMaxThreads = 256;
inline constexpr int kMaxQueueDepth = 4096;

struct StorageCase {
  StorageLayout layout = StorageLayout::kFilePerChunk;
  IoMode mode = IoMode::kBuffered;
  IoEngine engine = IoEngine::kThreads;
  std::uint64_t chunk_bytes = 0;
  std::int64_t chunks = 0;
  int threads = 1;
  int queue_depth = 1;  // in flight per thread: 1 for the threads engine
  std::uint64_t seed = 1;
  std::uint64_t bytes() const { return chunk_bytes * static_cast<std::uint64_t>(chunks); }
  std::string id() const;  // "per-rank-file/direct/io_uring/4MiB/t4/qd8"
};

// The sweep as asked for: every list non-empty, each value checked.
struct StorageSweep {
  std::vector<StorageLayout> layouts;
  std::vector<IoMode> modes;
  std::vector<IoEngine> engines;
  std::vector<std::uint64_t> chunk_sizes;
  std::vector<int> threads;
  std::vector<int> queue_depths;
  std::uint64_t size_bytes = 0;  // data per case: chunks = size / chunk
  std::uint64_t seed = 1;
};

// Refuses a chunk that is zero, not a multiple of kChunkAlign, above kMaxChunkBytes or above the
// size (UsageError naming --chunk or --size).
void check_sweep(const StorageSweep& s);
// Every combination; the threads engine takes queue depth 1 once, whatever --queue-depth lists.
std::vector<StorageCase> plan_cases(const StorageSweep& s);

// "1,4,16": positive integers up to `hi`, each once; UsageError naming `what`.
std::vector<int> parse_int_list(const std::string& text, const std::string& what, int hi);

}  // namespace kvb

#pragma once
// One KV-block transfer to measure: N blocks of B bytes picked by a seeded block-id map from a
// GPU-side pool and a host-side pool, in one direction or both at once.
#include <cstdint>
#include <string>
#include <vector>

#include "perf/copy_method.hpp"

namespace kvb {

enum class Direction { kH2D, kD2H, kBidir };
enum class Layout { kContiguous, kPerLayer };
enum class HostMemKind { kPinned, kPageable, kWriteCombined };

std::string to_string(Direction d);
std::string to_string(Layout l);
std::string to_string(HostMemKind k);
// Parsers throw UsageError naming `what` and the accepted values.
Direction parse_direction(const std::string& s, const std::string& what);
Layout parse_layout(const std::string& s, const std::string& what);
HostMemKind parse_host_mem(const std::string& s, const std::string& what);

struct TransferCase {
  Direction direction = Direction::kH2D;
  Method method = Method::kCe;
  Layout layout = Layout::kContiguous;
  int layers = 1;                    // per-layer layout: fragments per block
  std::uint64_t block_bytes = 0;     // one KV block (all layers)
  std::int64_t blocks = 1000;        // blocks per transfer
  std::int64_t gpu_pool_blocks = 0;  // pool sizes, in blocks
  std::int64_t host_pool_blocks = 0;
  HostMemKind host_mem = HostMemKind::kPinned;
  int numa_node = -1;  // -1: the GPU's node, or none
  int ctas = 0;        // kernel method: CTAs (GPU) or threads (host); 0 = all
  std::uint64_t seed = 1;
  bool with_compute = false;  // a compute-bound load runs alongside; its slowdown is measured

  std::uint64_t fragment_bytes() const { return block_bytes / static_cast<std::uint64_t>(layers); }
  std::uint64_t bytes_per_direction() const { return block_bytes * static_cast<std::uint64_t>(blocks); }
  std::string id() const;  // stable identity used by JSON and compare
};

// Where each transferred block comes from and goes to: distinct ids in each pool.
struct BlockMap {
  std::vector<std::int64_t> gpu_ids;
  std::vector<std::int64_t> host_ids;
};

// Seeded: the same seed gives the same map. Throws UsageError when a pool is smaller than the
// number of blocks.
BlockMap make_block_map(std::int64_t blocks, std::int64_t gpu_pool_blocks, std::int64_t host_pool_blocks,
                        std::uint64_t seed);

// One contiguous copy: byte offsets into the source and destination pools.
struct CopyOp {
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint64_t bytes = 0;
};

// The copies one direction of a case performs. Pools are laid out layer-major for per-layer
// (layer l of block k sits at (l x pool_blocks + k) x fragment), as vLLM's pre-0.12 layout.
std::vector<CopyOp> copy_ops(const TransferCase& c, const BlockMap& map, Direction one_direction);

// Bytes of the GPU-side and host-side pools.
std::uint64_t gpu_pool_bytes(const TransferCase& c);
std::uint64_t host_pool_bytes(const TransferCase& c);

// The largest GPU-side and host-side pools any of `cases` needs (a sweep's pools are built once).
struct PoolBytes {
  std::uint64_t gpu = 0, host = 0;
};
PoolBytes largest_pools(const std::vector<TransferCase>& cases);

// The method as tables and compare keys print it: "kernel/8" for a copy kernel limited to 8 CTAs.
std::string method_label(const TransferCase& c);

}  // namespace kvb

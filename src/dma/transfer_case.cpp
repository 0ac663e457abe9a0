#include "dma/transfer_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/errors.hpp"

namespace kvb {

std::string to_string(Direction d) {
  switch (d) {
    case Direction::kH2D:
      return "h2d";
    case Direction::kD2H:
      return "d2h";
    case Direction::kBidir:
      return "bidir";
  }
  return "?";
}
std::string to_string(Layout l) { return l == Layout::kContiguous ? "contiguous" : "per-layer"; }
std::string to_string(HostMemKind k) {
  switch (k) {
    case HostMemKind::kPinned:
      return "pinned";
    case HostMemKind::kPageable:
      return "pageable";
    case HostMemKind::kWriteCombined:
      return "write-combined";
  }
  return "?";
}

Direction parse_direction(const std::string& s, const std::string& what) {
  if (s == "h2d") return Direction::kH2D;
  if (s == "d2h") return Direction::kD2H;
  if (s == "bidir") return Direction::kBidir;
  throw UsageError(fmt::format("{}: '{}' is not a direction; expected h2d, d2h or bidir", what, s));
}
Layout parse_layout(const std::string& s, const std::string& what) {
  if (s == "contiguous") return Layout::kContiguous;
  if (s == "per-layer") return Layout::kPerLayer;
  throw UsageError(fmt::format("{}: '{}' is not a layout; expected contiguous or per-layer", what, s));
}
HostMemKind parse_host_mem(const std::string& s, const std::string& what) {
  if (s == "pinned") return HostMemKind::kPinned;
  if (s == "pageable") return HostMemKind::kPageable;
  if (s == "write-combined") return HostMemKind::kWriteCombined;
  throw UsageError(fmt::format(
      "{}: '{}' is not a host memory kind; expected pinned, pageable or write-combined", what, s));
}

// An identifier (records, compare's keys, progress), not a sentence.
std::string TransferCase::id() const {
  return fmt::format("{}/{}/{}{}/{}B/x{}/{}{}{}", to_string(method), to_string(direction), to_string(layout),
                     layout == Layout::kPerLayer ? fmt::format("{}", layers) : "", block_bytes, blocks,
                     to_string(host_mem),
                     method == Method::kKernel && ctas > 0 ? fmt::format("/ctas{}", ctas) : "",
                     with_compute ? "/+compute" : "");
}

BlockMap make_block_map(std::int64_t blocks, std::int64_t gpu_pool_blocks, std::int64_t host_pool_blocks,
                        std::uint64_t seed) {
  if (blocks < 1) throw UsageError(fmt::format("--blocks {}: expected at least 1 block", blocks));
  if (gpu_pool_blocks < blocks || host_pool_blocks < blocks) {
    throw UsageError(
        fmt::format("pool of {} GPU / {} host blocks cannot hold {} distinct blocks; expected a larger "
                    "--pool or fewer --blocks",
                    gpu_pool_blocks, host_pool_blocks, blocks));
  }
  std::mt19937_64 rng(seed);
  // Partial Fisher-Yates: the first `blocks` entries are a uniform sample without repeats.
  auto pick = [&](std::int64_t pool) {
    std::vector<std::int64_t> ids(static_cast<std::size_t>(pool));
    std::iota(ids.begin(), ids.end(), std::int64_t{0});
    for (std::int64_t i = 0; i < blocks; ++i) {
      std::uniform_int_distribution<std::int64_t> d(i, pool - 1);
      std::swap(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(d(rng))]);
    }
    ids.resize(static_cast<std::size_t>(blocks));
    return ids;
  };
  BlockMap m;
  m.gpu_ids = pick(gpu_pool_blocks);
  m.host_ids = pick(host_pool_blocks);
  return m;
}

std::uint64_t gpu_pool_bytes(const TransferCase& c) {
  return c.block_bytes * static_cast<std::uint64_t>(c.gpu_pool_blocks);
}
std::uint64_t host_pool_bytes(const TransferCase& c) {
  return c.block_bytes * static_cast<std::uint64_t>(c.host_pool_blocks);
}

std::vector<CopyOp> copy_ops(const TransferCase& c, const BlockMap& map, Direction one_direction) {
  const bool to_gpu = one_direction == Direction::kH2D;
  const std::uint64_t frag = c.fragment_bytes();
  const int layers = c.layout == Layout::kPerLayer ? c.layers : 1;
  const std::uint64_t piece = c.layout == Layout::kPerLayer ? frag : c.block_bytes;
  std::vector<CopyOp> ops;
  ops.reserve(static_cast<std::size_t>(c.blocks) * static_cast<std::size_t>(layers));
  for (std::size_t i = 0; i < map.gpu_ids.size(); ++i) {
    const auto g = static_cast<std::uint64_t>(map.gpu_ids[i]);
    const auto h = static_cast<std::uint64_t>(map.host_ids[i]);
    for (int l = 0; l < layers; ++l) {
      const auto lu = static_cast<std::uint64_t>(l);
      const std::uint64_t goff = (lu * static_cast<std::uint64_t>(c.gpu_pool_blocks) + g) * piece;
      const std::uint64_t hoff = (lu * static_cast<std::uint64_t>(c.host_pool_blocks) + h) * piece;
      ops.push_back(to_gpu ? CopyOp{hoff, goff, piece} : CopyOp{goff, hoff, piece});
    }
  }
  return ops;
}

PoolBytes largest_pools(const std::vector<TransferCase>& cases) {
  PoolBytes p;
  for (const auto& c : cases) {
    p.gpu = std::max(p.gpu, gpu_pool_bytes(c));
    p.host = std::max(p.host, host_pool_bytes(c));
  }
  return p;
}

// A label ("kernel/16"), not a sentence.
std::string method_label(const TransferCase& c) {
  return c.method == Method::kKernel && c.ctas > 0 ? fmt::format("kernel/{}", c.ctas) : to_string(c.method);
}

}  // namespace kvb

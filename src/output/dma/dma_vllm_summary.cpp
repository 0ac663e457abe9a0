// The closing lines of `kvbench dma`'s table: what the measured figures mean for vLLM's CPU
// offloading. Block ranges from the vLLM blog (https://blog.vllm.ai/2026/01/08/kv-offloading-connector.html):
// from vLLM 0.12 one contiguous block spans all layers (0.5-2.5 MB); before, one copy per layer
// fragment (8-72 KB).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/units.hpp"
#include "dma/method_ranking.hpp"
#include "output/dma/dma_output.hpp"

namespace kvb {
namespace {

constexpr std::uint64_t kContiguousMin = 512ULL << 10;  // 0.5 MB, rounded to KiB block sizes
constexpr std::uint64_t kContiguousMax = 2'500'000;
constexpr std::uint64_t kFragmentMin = 8'000;
constexpr std::uint64_t kFragmentMax = 72ULL << 10;

// "h2d: ce-batch 53.6 (ce 50.2, kernel 50.9)": the best method first, then the others.
std::string ranked(const std::vector<const DmaRecord*>& rs) {
  std::string out = fmt::format("{} {:.1f}", method_label(rs.front()->tcase), rs.front()->median_gbps);
  if (rs.size() > 1) {
    out += " (";
    for (std::size_t i = 1; i < rs.size(); ++i) {
      out += fmt::format("{}{} {:.1f}", i > 1 ? ", " : "", method_label(rs[i]->tcase), rs[i]->median_gbps);
    }
    out += ")";
  }
  return out;
}

// One line per block size (and layout) among `rs`: each direction's methods ranked.
std::string ranked_lines(const std::vector<const DmaRecord*>& rs) {
  std::string out;
  for (const auto& [block, dirs] : rank_methods(rs)) {
    std::string label = format_block_size(block.block_bytes);
    if (block.layers > 1) label += fmt::format(" /{}L", block.layers);
    out += fmt::format("    {:<12}", label);
    bool first = true;
    for (const auto& [dir, list] : dirs) {
      out += fmt::format("{}{}: {}", first ? "" : "   ", to_string(dir), ranked(list));
      first = false;
    }
    out += "\n";
  }
  return out;
}

// "ce 1.00x, kernel/16 1.48-1.65x, ...": the range of slowdowns per method over the measured blocks,
// in method order and CTA budget order (a kernel on every SM last): an operator picks a CTA
// budget from this line.
std::string slowdown_lines(const std::vector<const DmaRecord*>& compute) {
  struct Range {
    std::string label;
    double lo, hi;
  };
  std::map<std::pair<int, int>, Range> range;
  for (const auto* r : compute) {
    const auto& c = r->tcase;
    const std::pair<int, int> key{static_cast<int>(c.method), c.ctas > 0 ? c.ctas : 1 << 30};
    auto [it, fresh] =
        range.try_emplace(key, Range{method_label(c), r->compute_slowdown, r->compute_slowdown});
    if (!fresh) {
      it->second.lo = std::min(it->second.lo, r->compute_slowdown);
      it->second.hi = std::max(it->second.hi, r->compute_slowdown);
    }
  }
  std::string out = "\n";
  std::size_t n = 0;
  for (const auto& [key, rg] : range) {
    out += n % 4 == 0 ? "    " : ", ";
    out += rg.label +
           (key.first == static_cast<int>(Method::kKernel) && key.second == 1 << 30 ? " (every SM)" : "");
    out += rg.lo == rg.hi ? fmt::format(" {:.2f}x", rg.lo) : fmt::format(" {:.2f}-{:.2f}x", rg.lo, rg.hi);
    if (++n % 4 == 0 || n == range.size()) out += "\n";
  }
  return out;
}

}  // namespace

std::string dma_vllm_summary(const std::vector<DmaRecord>& records) {
  if (records.empty()) return "";
  const int device = records.front().device.index;
  std::vector<const DmaRecord*> contiguous, fragments, per_layer;
  std::vector<const DmaRecord*> compute;
  for (const auto& r : records) {
    if (r.device.index != device) continue;  // one device's view; the aggregate table has the rest
    if (r.tcase.with_compute) {
      if (!r.waived && r.compute_slowdown > 0) compute.push_back(&r);
      continue;
    }
    if (!counts_in_ranking(r) || r.tcase.direction == Direction::kBidir) continue;  // one way only
    const auto& c = r.tcase;
    if (c.layout == Layout::kPerLayer) {
      per_layer.push_back(&r);
    } else if (c.block_bytes >= kContiguousMin && c.block_bytes <= kContiguousMax) {
      contiguous.push_back(&r);
    } else if (c.block_bytes >= kFragmentMin && c.block_bytes <= kFragmentMax) {
      fragments.push_back(&r);
    }
  }
  std::string out =
      "\nWhat this means for vLLM's CPU offloading (best method first, GB/s, measured above):\n";
  out += "  contiguous blocks (vLLM >= 0.12: one block of all layers, 0.5-2.5 MB):\n";
  out += contiguous.empty() ? "    not measured (add --block 512KiB,1MiB,2MiB)\n" : ranked_lines(contiguous);
  if (!per_layer.empty()) {
    out += "  per-layer fragments (before 0.12: one copy per layer):\n" + ranked_lines(per_layer);
  } else {
    out += "  per-layer fragments (before 0.12: one copy per layer of 8-72 KB; copies of that size):\n";
    out += fragments.empty() ? "    not measured (add --block 16KiB,64KiB or --layout per-layer)\n"
                             : ranked_lines(fragments);
  }
  out += "  SM cost (compute slowdown while copying, --with-compute):";
  if (compute.empty()) {
    out += " not measured (add --with-compute)\n";
  } else {
    out += slowdown_lines(compute);
  }
  out +=
      "  vLLM's native offloading copies on the copy engines (ce; one batched call GPU->CPU in recent "
      "versions),\n"
      "  which leave the SMs to the model; a copy kernel pays only where it is faster by more than its SM "
      "cost.\n";
  return out;
}

}  // namespace kvb

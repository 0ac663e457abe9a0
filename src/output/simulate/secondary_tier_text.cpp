#include "output/simulate/secondary_tier_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/units.hpp"
#include "output/common/text_table.hpp"

namespace kvb {

namespace {

std::string rates_text(const SecondaryTierResult& s) {
  return fmt::format("{:.3g}/{:.3g}{}", s.read_gbps, s.write_gbps, s.rates_stated ? " stated" : " measured");
}

}  // namespace

std::string secondary_tier_tables(const SweepRun& run) {
  const bool any = std::any_of(run.points.begin(), run.points.end(),
                               [](const SweepPoint& p) { return p.result.secondary.has_value(); });
  if (!any) return {};
  std::vector<std::string> header;
  for (const auto& a : run.axes) header.push_back(a.key);
  for (const char* h : {"2nd blk", "read/write GB/s", "latency", "2nd hit", "CPU hit", "written GB",
                        "read GB", "blk written", "blk read", "peak blk", "evicted", "disk busy w/r"}) {
    header.emplace_back(h);
  }
  TextTable t(header);
  for (const auto& p : run.points) {
    if (!p.result.secondary) continue;
    const auto& s = *p.result.secondary;
    std::vector<std::string> row;
    for (const auto& kv : p.params) row.push_back(kv.second);
    for (auto cell : std::vector<std::string>{
             format_count(s.capacity_blocks), rates_text(s), format_seconds(s.latency_us * 1e-6),
             fmt::format("{:.1f}%", 100.0 * s.hit_rate),
             fmt::format("{:.1f}%", 100.0 * p.result.cpu_hit_rate),
             fmt::format("{:.2f}", s.bytes_written / kGB), fmt::format("{:.2f}", s.bytes_read / kGB),
             format_count(s.blocks_written), format_count(s.blocks_read), format_count(s.peak_blocks),
             format_count(s.evictions),
             fmt::format("{}/{}", format_seconds(s.write_busy_s), format_seconds(s.read_busy_s))}) {
      row.push_back(std::move(cell));
    }
    t.add_row(row);
  }
  const auto& source = run.scenario.server.secondary_rates_source;
  const bool beside = run.scenario.server.kv_offloading_medium == OffloadMedium::kCpuAndFile;
  return (beside
              ? "\nSecondary tier beside the CPU tier (vLLM's MultiConnector: every block stored from the "
                "GPU "
                "to both, a request the CPU tier misses loaded from the files straight to the GPU; 2nd hit = "
                "prompt tokens it served):\n"
              : "\nSecondary tier behind the CPU tier (vLLM tiering: written through from the CPU tier, a "
                "hit "
                "read disk -> CPU -> GPU; 2nd hit = prompt tokens it served):\n") +
         t.render() +
         (source.empty() ? "Its rates are stated (secondary-read-gbps, secondary-write-gbps), not measured.\n"
                         : fmt::format("Its rates are measured by kvbench storage: {}.\n", source)) +
         (beside ? "Scored against llm-d's file-system arms on 2x L40S, one of three cells within 15 points; "
                   "the "
                   "page cache is not modelled (docs/accuracy.md).\n"
                 : "Not scored against a real server; the disk sharing the GPU's PCIe link and the page "
                   "cache are "
                   "not modelled (docs/simulate.md).\n");
}

}  // namespace kvb

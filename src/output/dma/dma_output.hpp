#pragma once
// `kvbench dma` printers: table, header, cost line, CSV (the JSON document is dma/dma_json.hpp).
// They only read DmaRecords.
#include <string>
#include <vector>

#include "dma/dma_record.hpp"
#include "dma/dma_sweep.hpp"

namespace kvb {

std::string dma_table(const std::vector<DmaRecord>& records);
// The lines above the table: device, driver, link, timing, environment, what the columns mean.
std::string dma_header(const DeviceInfo& device, const std::vector<DmaRecord>& records, std::size_t devices);
// One line: where a run's time went (timed runs, warm-ups, set-up + verification, pool set-up).
std::string dma_cost_summary(const std::vector<DmaRecord>& records, double elapsed_s);
// What the figures mean for vLLM's offloading: the best method per block size for its contiguous
// blocks and its old per-layer fragments, and the copy kernel's SM cost where measured.
std::string dma_vllm_summary(const std::vector<DmaRecord>& records);
std::string dma_csv(const std::vector<DmaRecord>& records);
// "2.00 MiB blocks: 256 per transfer (a quarter of the 2.00 GiB pool; --blocks or --pool to change)".
std::string blocks_reduced_text(const BlocksReduced& r);

}  // namespace kvb

#pragma once
// `kvbench dma` printers: table, JSON (schema kvbench/dma/v1, read back by dma_records_from_json),
// CSV. They only read DmaRecords.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dma/dma_record.hpp"

namespace kvb {

inline constexpr const char* kDmaSchema = "kvbench/dma/v1";

std::string dma_table(const std::vector<DmaRecord>& records);
// The lines above the table: device, driver, link, timing, environment, what the columns mean.
std::string dma_header(const DeviceInfo& device, const std::vector<DmaRecord>& records, std::size_t devices);
// One line: where a run's time went (timed runs, warm-ups, set-up + verification, pool set-up).
std::string dma_cost_summary(const std::vector<DmaRecord>& records, double elapsed_s);
// What the figures mean for vLLM's offloading: the best method per block size for its contiguous
// blocks and its old per-layer fragments, and the copy kernel's SM cost where measured.
std::string dma_vllm_summary(const std::vector<DmaRecord>& records);
// The method as tables print it: "kernel/8" for a copy kernel limited to 8 CTAs.
std::string method_label(const TransferCase& c);
std::string dma_csv(const std::vector<DmaRecord>& records);
nlohmann::json dma_json(const std::vector<DmaRecord>& records);
// Throws UsageError naming `origin` for a wrong schema or a malformed record.
std::vector<DmaRecord> dma_records_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb

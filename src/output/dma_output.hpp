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
std::string dma_csv(const std::vector<DmaRecord>& records);
nlohmann::json dma_json(const std::vector<DmaRecord>& records);
// Throws UsageError naming `origin` for a wrong schema or a malformed record.
std::vector<DmaRecord> dma_records_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb

#pragma once
// The kvbench/dma/v1 result document: written by `kvbench dma --json`, read back by report,
// compare and simulate/size --link-profile. Writer and reader live together so they cannot drift.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dma/dma_record.hpp"

namespace kvb {

// No HBM or host link moves 100 TB/s: a bandwidth past this in a result file is a broken file.
inline constexpr double kMaxGbps = 1e5;

inline constexpr const char* kDmaSchema = "kvbench/dma/v1";

nlohmann::json dma_json(const std::vector<DmaRecord>& records);
// Throws UsageError naming `origin` for a wrong schema or a malformed record.
std::vector<DmaRecord> dma_records_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb

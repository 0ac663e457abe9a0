#pragma once
// The kvbench/storage/v1 result document: written by `kvbench storage --json`, read back by
// compare (and the report). Writer and reader live together so they cannot drift.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storage/storage_dir.hpp"
#include "storage/storage_record.hpp"

namespace kvb {

inline constexpr const char* kStorageSchema = "kvbench/storage/v1";
// No storage device moves 10 TB/s: a bandwidth past this in a result file is a broken file.
inline constexpr double kMaxStorageGbps = 1e4;

struct StorageDocument {
  StorageDirFacts dir;
  int repeats = 0;
  bool io_uring_built = false;
  bool interrupted = false;
  std::vector<StorageRecord> records;
};

nlohmann::json storage_json(const StorageDocument& doc);
// Throws UsageError naming `origin` for a wrong schema or a malformed record.
StorageDocument storage_document_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb

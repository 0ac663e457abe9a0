#pragma once
// `kvbench storage` printers: the header (where, what keeps the page cache out, which engines are
// built), the table, and the notes (the JSON document is storage/storage_json.hpp).
#include <string>

#include "storage/storage_json.hpp"

namespace kvb {

std::string storage_text(const StorageDocument& doc);
// The words for a document's page-cache method and its builds (also in docs/storage.md).
std::string cache_bypass_text(CacheBypass b);
std::string io_uring_text(bool built);
std::string gpudirect_text();

}  // namespace kvb

#include "size/engine_notes_json.hpp"

#include "core/json_file.hpp"
#include "core/units.hpp"
#include "size/fact_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a sizing can write: GB and GiB, ranks, seconds, bytes of a block.
constexpr double kMaxGb = 1e12;
constexpr std::int64_t kMaxRanks = 1 << 20;
constexpr double kMaxSeconds = 1e9;
constexpr std::int64_t kMaxTimeout = std::int64_t{1} << 30;
constexpr double kMaxBytes = 1e21;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const SglangHostRaised&) { return "sglang-host-raised"; }
const char* kind_of(const SglangHicacheSize&) { return "sglang-hicache-size"; }
const char* kind_of(const SglangHicacheRatio&) { return "sglang-hicache-ratio"; }
const char* kind_of(const SglangLayouts&) { return "sglang-layouts"; }
const char* kind_of(const KvbmCacheSize&) { return "kvbm-cache-size"; }
const char* kind_of(const KvbmAgainstGpuPool&) { return "kvbm-against-gpu-pool"; }
const char* kind_of(const KvbmInitTimeout&) { return "kvbm-init-timeout"; }
const char* kind_of(const KvbmStandalone&) { return "kvbm-standalone"; }
const char* kind_of(const LmcacheSizePerRank&) { return "lmcache-size-per-rank"; }
const char* kind_of(const LmcacheEnvironment&) { return "lmcache-environment"; }
const char* kind_of(const WordedEngineNote&) { return "worded"; }

// Each fact's fields, named as its struct's; a fact with none writes its kind alone.
void put(const SglangHostRaised& n, json& j) {
  j["host_gb"] = n.host_gb;
  j["device_gb"] = n.device_gb;
}
void put(const SglangHicacheSize& n, json& j) {
  j["gib"] = n.gib;
  j["ranks"] = n.ranks;
  j["per_rank_gb"] = n.per_rank_gb;
}
void put(const SglangHicacheRatio& n, json& j) {
  j["ratio"] = n.ratio;
  j["device_gb"] = n.device_gb;
}
void put(const KvbmCacheSize& n, json& j) {
  j["ranks"] = n.ranks;
  j["gib"] = n.gib;
  j["cache_gb"] = n.cache_gb;
  j["host_blocks"] = n.host_blocks;
  j["block_tokens"] = n.block_tokens;
  j["block_bytes"] = n.block_bytes;
}
void put(const KvbmAgainstGpuPool& n, json& j) {
  j["gpu_pool_gib"] = n.gpu_pool_gib;
  j["above"] = n.above;
  j["simulated"] = n.simulated;
}
void put(const KvbmInitTimeout& n, json& j) {
  j["pin_s"] = n.pin_s;
  j["timeout_s"] = n.timeout_s;
}
void put(const LmcacheSizePerRank& n, json& j) {
  j["gib"] = n.gib;
  j["ranks"] = n.ranks;
}
void put(const WordedEngineNote& n, json& j) { j["text"] = n.text; }
template <typename Fact>
void put(const Fact&, json&) {}

using EngineFields = FactFields;  // each error naming `origin: engine_notes`

void get(const EngineFields& r, const json& j, SglangHostRaised& n) {
  n.host_gb = r.required(j, "host_gb", kMaxGb);
  n.device_gb = r.required(j, "device_gb", kMaxGb);
}
void get(const EngineFields& r, const json& j, SglangHicacheSize& n) {
  n.gib = r.required(j, "gib", kMaxGb);
  n.ranks = r.whole(j, "ranks", 1, kMaxRanks);
  n.per_rank_gb = r.required(j, "per_rank_gb", kMaxGb);
}
void get(const EngineFields& r, const json& j, SglangHicacheRatio& n) {
  n.ratio = r.required(j, "ratio", kMaxGb);
  n.device_gb = r.required(j, "device_gb", kMaxGb);
}
void get(const EngineFields& r, const json& j, KvbmCacheSize& n) {
  n.ranks = r.whole(j, "ranks", 1, kMaxRanks);
  n.gib = r.required(j, "gib", kMaxGb);
  n.cache_gb = r.required(j, "cache_gb", kMaxGb);
  n.host_blocks = json_integer_in(j, "host_blocks", 0, kMaxTokens, r.where());
  n.block_tokens = r.whole(j, "block_tokens", 0, kMaxTimeout);
  n.block_bytes = r.required(j, "block_bytes", kMaxBytes);
}
void get(const EngineFields& r, const json& j, KvbmAgainstGpuPool& n) {
  n.gpu_pool_gib = r.required(j, "gpu_pool_gib", kMaxGb);
  n.above = r.flag(j, "above");
  n.simulated = r.flag(j, "simulated");
}
void get(const EngineFields& r, const json& j, KvbmInitTimeout& n) {
  n.pin_s = r.required(j, "pin_s", kMaxSeconds);
  n.timeout_s = r.whole(j, "timeout_s", 0, kMaxTimeout);
}
void get(const EngineFields& r, const json& j, LmcacheSizePerRank& n) {
  n.gib = r.required(j, "gib", kMaxGb);
  n.ranks = r.whole(j, "ranks", 1, kMaxRanks);
}
void get(const EngineFields& r, const json& j, WordedEngineNote& n) { n.text = r.text(j, "text"); }
template <typename Fact>
void get(const EngineFields&, const json&, Fact&) {}

// The walk of EngineNote's alternatives (core/json_facts) with this file's tags.
const auto kEngineNoteKind = [](const auto& fact) { return kind_of(fact); };

}  // namespace

std::vector<std::string> engine_note_kinds() { return fact_kinds<EngineNote>(kEngineNoteKind); }

json engine_note_to_json(const EngineNote& n) {
  return fact_to_json(n, kEngineNoteKind, [](const auto& fact, json& j) { put(fact, j); });
}

EngineNote engine_note_from_json(const json& j, const std::string& origin) {
  if (j.is_string()) return WordedEngineNote{j.get<std::string>()};  // written before they were facts
  const EngineFields r(origin + ": engine_notes");
  return fact_from_json<EngineNote>(
      j, r, "an engine note", kEngineNoteKind,
      [](const EngineFields& fr, const json& f, auto& fact) { get(fr, f, fact); });
}

json engine_notes_json(const std::vector<EngineNote>& notes) {
  return fact_list_json(notes, engine_note_to_json);
}

std::vector<EngineNote> read_engine_notes(const json& record, const std::string& origin) {
  return read_fact_list<EngineNote>(record, "engine_notes", origin,
                                    [&](const json& item) { return engine_note_from_json(item, origin); });
}

}  // namespace kvb

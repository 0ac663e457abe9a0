#include "size/sizing_warnings_json.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "size/fact_json.hpp"
#include "size/kv_layout_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a sizing can write: GiB, bytes, ranks, layers.
constexpr double kMaxGib = 1e9;
constexpr double kMaxBytes = 1e21;
constexpr std::int64_t kMaxRanks = 1 << 20;
constexpr std::int64_t kMaxBytesPerToken = std::int64_t{1} << 50;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const ContextBeyondTrained&) { return "context-beyond-trained"; }
const char* kind_of(const ReplicatedKv&) { return "replicated-kv"; }
const char* kind_of(const TierRefused&) { return "tier-refused"; }
const char* kind_of(const SlidingAsFull&) { return "sliding-as-full"; }
const char* kind_of(const LmcachePerRank&) { return "lmcache-per-rank"; }
const char* kind_of(const TierBeyondHostDram&) { return "tier-beyond-host-dram"; }
const char* kind_of(const TierBeyondCap&) { return "tier-beyond-cap"; }
const char* kind_of(const KvCacheMemoryTooLarge&) { return "kv-cache-memory-too-large"; }
const char* kind_of(const RanksBeyondNode&) { return "ranks-beyond-node"; }
const char* kind_of(const WorkloadServerKeysIgnored&) { return "workload-server-keys-ignored"; }
const char* kind_of(const WorkloadNotSimulated&) { return "workload-not-simulated"; }
const char* kind_of(const HostBackendLink&) { return "host-backend-link"; }
const char* kind_of(const TierRegionPinFails&) { return "tier-region-pin-fails"; }
const char* kind_of(const DraftZeroesTierHits&) { return "draft-zeroes-tier-hits"; }
const char* kind_of(const WordedWarning&) { return "worded"; }

// The enums' tags in the document (stable, unlike their printed words).
constexpr TagTable<GpuVendor, 2> kVendors{{{GpuVendor::kNvidia, "nvidia"}, {GpuVendor::kAmd, "amd"}}};

// Each fact's fields, named as its struct's.
void put(const ContextBeyondTrained& w, json& j) {
  j["max_model_len"] = w.max_model_len;
  j["model"] = w.model;
  j["max_position_embeddings"] = w.max_position_embeddings;
  j["extension"] = w.extension;
}
void put(const ReplicatedKv& w, json& j) {
  j["cause"] = tag_of(kReplicationCauseTags, w.replication.cause);
  j["tp"] = w.replication.tp;
  j["kv_heads"] = w.replication.kv_heads;
  j["copies"] = w.copies;
}
void put(const TierRefused& w, json& j) {
  j["layout"] = tag_of(kOffloadLayoutTags, w.kind);
  j["vllm_version"] = to_string(w.version);  // not "version": golden.py drops that key as the tool's
  j["vendor"] = tag_of(kVendors, w.vendor);
  j["failure"] = w.failure;
  j["source"] = w.source;
}
void put(const SlidingAsFull& w, json& j) {
  j["sliding_layers"] = w.sliding_layers;
  j["bytes_per_token_hybrid"] = w.bytes_per_token_hybrid;
  j["bytes_per_token_full"] = w.bytes_per_token_full;
  j["by_connector"] = w.by_connector ? json(to_string(*w.by_connector)) : json(nullptr);
}
void put(const LmcachePerRank& w, json& j) {
  j["per_rank_gib"] = w.per_rank_gib;
  j["total_gib"] = w.total_gib;
  j["ranks"] = w.ranks;
}
void put(const TierBeyondHostDram& w, json& j) {
  j["given_gib"] = w.given_gib;
  j["host_gib"] = w.host_gib;
}
void put(const TierBeyondCap& w, json& j) {
  j["given_gib"] = w.given_gib;
  j["cap_gib"] = w.cap_gib;
  j["dram_fraction"] = w.dram_fraction;
}
void put(const KvCacheMemoryTooLarge& w, json& j) {
  j["kv_bytes"] = w.kv_bytes;
  j["other_gib"] = w.other_gib;
  j["total_gib"] = w.total_gib;
  j["exceeds_gib"] = w.exceeds_gib;
}
void put(const RanksBeyondNode& w, json& j) {
  j["ranks"] = w.ranks;
  j["gpus_per_node"] = w.gpus_per_node;
  j["hardware"] = w.hardware;
}
void put(const WorkloadServerKeysIgnored& w, json& j) {
  j["workload"] = w.workload;
  j["keys"] = w.keys;
  j["simulate_as"] = w.simulate_as;
}
void put(const WorkloadNotSimulated& w, json& j) {
  j["workload"] = w.workload.workload;
  j["weights_fit"] = w.workload.weights_fit;
}
// The link's origin only: the warning is about where its figures came from, not its curves.
void put(const HostBackendLink& w, json& j) {
  j["file"] = w.link.origin.file;
  j["device"] = w.link.origin.device;
  j["method"] = w.link.origin.method;
}
void put(const TierRegionPinFails& w, json& j) {
  j["tier_gib"] = w.tier_gib;
  j["vllm_version"] = to_string(w.version);
  j["given"] = w.given;
}
void put(const DraftZeroesTierHits& w, json& j) {
  j["draft_layers"] = w.draft_layers;
  j["vllm_version"] = to_string(w.version);
}
void put(const WordedWarning& w, json& j) { j["text"] = w.text; }

using WarningFields = FactFields;  // each error naming `origin: warnings`

void get(const WarningFields& r, const json& j, ContextBeyondTrained& w) {
  w.max_model_len = json_integer_in(j, "max_model_len", 1, kMaxTokens, r.where());
  w.model = r.text(j, "model");
  w.max_position_embeddings = json_integer_in(j, "max_position_embeddings", 0, kMaxTokens, r.where());
  w.extension = r.text(j, "extension");
}
void get(const WarningFields& r, const json& j, ReplicatedKv& w) {
  w.replication.cause = r.tagged(j, "cause", kReplicationCauseTags);
  w.replication.tp = r.whole(j, "tp", 1, kMaxRanks);
  w.replication.kv_heads = r.whole(j, "kv_heads", 0, kMaxRanks);
  w.copies = r.whole(j, "copies", 1, kMaxRanks);
}
void get(const WarningFields& r, const json& j, TierRefused& w) {
  w.kind = r.tagged(j, "layout", kOffloadLayoutTags);
  w.version = r.version(j, "vllm_version");
  w.vendor = r.tagged(j, "vendor", kVendors);
  w.failure = r.text(j, "failure");
  w.source = r.text(j, "source");
}
void get(const WarningFields& r, const json& j, SlidingAsFull& w) {
  w.sliding_layers = r.whole(j, "sliding_layers", 0, kMaxRanks);
  // Both at least 1 byte: the wording divides one by the other.
  w.bytes_per_token_hybrid = json_integer_in(j, "bytes_per_token_hybrid", 1, kMaxBytesPerToken, r.where());
  w.bytes_per_token_full = json_integer_in(j, "bytes_per_token_full", 1, kMaxBytesPerToken, r.where());
  if (const auto it = j.find("by_connector"); it != j.end() && !it->is_null()) {
    w.by_connector = r.version(j, "by_connector");
  }
}
void get(const WarningFields& r, const json& j, LmcachePerRank& w) {
  w.per_rank_gib = r.required(j, "per_rank_gib", kMaxGib);
  w.total_gib = r.required(j, "total_gib", kMaxGib);
  w.ranks = r.whole(j, "ranks", 1, kMaxRanks);
}
void get(const WarningFields& r, const json& j, TierBeyondHostDram& w) {
  w.given_gib = r.required(j, "given_gib", kMaxGib);
  w.host_gib = r.required(j, "host_gib", kMaxGib);
}
void get(const WarningFields& r, const json& j, TierBeyondCap& w) {
  w.given_gib = r.required(j, "given_gib", kMaxGib);
  w.cap_gib = r.required(j, "cap_gib", kMaxGib);
  w.dram_fraction = r.required(j, "dram_fraction", 1);
}
void get(const WarningFields& r, const json& j, KvCacheMemoryTooLarge& w) {
  w.kv_bytes = r.required(j, "kv_bytes", kMaxBytes);
  w.other_gib = r.required(j, "other_gib", kMaxGib);
  w.total_gib = r.required(j, "total_gib", kMaxGib);
  w.exceeds_gib = r.required(j, "exceeds_gib", kMaxGib);
}
void get(const WarningFields& r, const json& j, RanksBeyondNode& w) {
  w.ranks = r.whole(j, "ranks", 1, kMaxRanks);
  w.gpus_per_node = r.whole(j, "gpus_per_node", 1, kMaxRanks);
  w.hardware = r.text(j, "hardware");
}
void get(const WarningFields& r, const json& j, WorkloadServerKeysIgnored& w) {
  w.workload = r.text(j, "workload");
  w.keys = r.lines(j, "keys");
  w.simulate_as = r.text(j, "simulate_as");
}
void get(const WarningFields& r, const json& j, WorkloadNotSimulated& w) {
  w.workload.workload = r.text(j, "workload");
  w.workload.weights_fit = r.flag(j, "weights_fit");
}
void get(const WarningFields& r, const json& j, HostBackendLink& w) {
  w.link.origin.figures = LinkFigures::kFitted;  // the host backend's figures are a result's, fitted
  w.link.origin.host_backend = true;
  w.link.origin.file = r.text(j, "file");
  w.link.origin.device = r.text(j, "device");
  w.link.origin.method = r.text(j, "method");
}
void get(const WarningFields& r, const json& j, TierRegionPinFails& w) {
  w.tier_gib = r.required(j, "tier_gib", kMaxGib);
  w.version = r.version(j, "vllm_version");
  w.given = r.flag(j, "given");
}
void get(const WarningFields& r, const json& j, DraftZeroesTierHits& w) {
  w.draft_layers = r.whole(j, "draft_layers", 1, kMaxRanks);
  w.version = r.version(j, "vllm_version");
}
void get(const WarningFields& r, const json& j, WordedWarning& w) { w.text = r.text(j, "text"); }

}  // namespace

std::vector<std::string> sizing_warning_kinds() {
  return fact_kinds<SizingWarning>([](const auto& w) { return kind_of(w); });
}

json sizing_warning_to_json(const SizingWarning& w) {
  return fact_to_json(
      w, [](const auto& f) { return kind_of(f); }, [](const auto& f, json& j) { put(f, j); });
}

SizingWarning sizing_warning_from_json(const json& j, const std::string& origin) {
  if (j.is_string()) return WordedWarning{j.get<std::string>()};  // written before warnings were facts
  return fact_from_json<SizingWarning>(
      j, WarningFields(origin + ": warnings"), "a warning", [](const auto& f) { return kind_of(f); },
      [](const WarningFields& r, const json& f, auto& fact) { get(r, f, fact); });
}

json sizing_warnings_json(const std::vector<SizingWarning>& warnings) {
  return fact_list_json(warnings, sizing_warning_to_json);
}

std::vector<SizingWarning> read_sizing_warnings(const json& record, const std::string& origin) {
  return read_fact_list<SizingWarning>(record, "warnings", origin,
                                       [&](const json& w) { return sizing_warning_from_json(w, origin); });
}

}  // namespace kvb

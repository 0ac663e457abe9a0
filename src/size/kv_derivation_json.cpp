#include "size/kv_derivation_json.hpp"

#include "core/json_file.hpp"
#include "size/fact_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a layout can write: a head's or latent's width, heads, ranks, bytes per layer.
constexpr std::int64_t kMaxWidth = 1 << 24;
constexpr std::int64_t kMaxRanks = 1 << 20;
constexpr std::int64_t kMaxDtypeBytes = 64;
constexpr std::int64_t kMaxBytesPerLayer = std::int64_t{1} << 40;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const MlaSparseFp8Step&) { return "mla-sparse-fp8"; }
const char* kind_of(const MlaLatentStep&) { return "mla-latent"; }
const char* kind_of(const IndexerStep&) { return "indexer"; }
const char* kind_of(const KvHeadsStep&) { return "kv-heads"; }
const char* kind_of(const WordedDerivationStep&) { return "worded"; }

// Each fact's fields, named as its struct's.
void put(const MlaSparseFp8Step& s, json& j) {
  j["latent"] = s.latent;
  j["scale_bytes"] = s.scale_bytes;
  j["rope"] = s.rope;
  j["bytes"] = s.bytes;
}
void put(const MlaLatentStep& s, json& j) {
  j["kv_lora_rank"] = s.kv_lora_rank;
  j["rope"] = s.rope;
  j["dtype_bytes"] = s.dtype_bytes;
  j["bytes"] = s.bytes;
}
void put(const IndexerStep& s, json& j) {
  j["head_dim"] = s.head_dim;
  j["scale_bytes"] = s.scale_bytes;
  j["bytes"] = s.bytes;
}
void put(const KvHeadsStep& s, json& j) {
  j["mha"] = s.mha;
  j["heads_per_rank"] = s.heads_per_rank;
  j["kv_heads"] = s.kv_heads;
  j["tp"] = s.tp;
  j["head_dim"] = s.head_dim;
  j["dtype_bytes"] = s.dtype_bytes;
  j["bytes"] = s.bytes;
}
void put(const WordedDerivationStep& s, json& j) { j["text"] = s.text; }

using StepFields = FactFields;  // each error naming `origin: derivation`

std::int64_t bytes(const StepFields& r, const json& j) {
  return json_integer_in(j, "bytes", 0, kMaxBytesPerLayer, r.where());
}

void get(const StepFields& r, const json& j, MlaSparseFp8Step& s) {
  s.latent = r.whole(j, "latent", 0, kMaxWidth);
  s.scale_bytes = r.whole(j, "scale_bytes", 0, kMaxWidth);
  s.rope = r.whole(j, "rope", 0, kMaxWidth);
  s.bytes = bytes(r, j);
}
void get(const StepFields& r, const json& j, MlaLatentStep& s) {
  s.kv_lora_rank = r.whole(j, "kv_lora_rank", 0, kMaxWidth);
  s.rope = r.whole(j, "rope", 0, kMaxWidth);
  s.dtype_bytes = r.whole(j, "dtype_bytes", 0, kMaxDtypeBytes);
  s.bytes = bytes(r, j);
}
void get(const StepFields& r, const json& j, IndexerStep& s) {
  s.head_dim = r.whole(j, "head_dim", 0, kMaxWidth);
  s.scale_bytes = r.whole(j, "scale_bytes", 0, kMaxWidth);
  s.bytes = bytes(r, j);
}
void get(const StepFields& r, const json& j, KvHeadsStep& s) {
  s.mha = r.flag(j, "mha");
  s.heads_per_rank = r.whole(j, "heads_per_rank", 0, kMaxWidth);
  s.kv_heads = r.whole(j, "kv_heads", 0, kMaxWidth);
  s.tp = r.whole(j, "tp", 1, kMaxRanks);
  s.head_dim = r.whole(j, "head_dim", 0, kMaxWidth);
  s.dtype_bytes = r.whole(j, "dtype_bytes", 0, kMaxDtypeBytes);
  s.bytes = bytes(r, j);
}
void get(const StepFields& r, const json& j, WordedDerivationStep& s) { s.text = r.text(j, "text"); }

// The walk of KvDerivationStep's alternatives (core/json_facts) with this file's tags.
const auto kStepKind = [](const auto& fact) { return kind_of(fact); };

}  // namespace

std::vector<std::string> kv_derivation_step_kinds() { return fact_kinds<KvDerivationStep>(kStepKind); }

json kv_derivation_step_to_json(const KvDerivationStep& s) {
  return fact_to_json(s, kStepKind, [](const auto& fact, json& j) { put(fact, j); });
}

KvDerivationStep kv_derivation_step_from_json(const json& j, const std::string& origin) {
  if (j.is_string()) return WordedDerivationStep{j.get<std::string>()};  // written before steps were facts
  const StepFields r(origin + ": derivation");
  return fact_from_json<KvDerivationStep>(
      j, r, "a derivation step", kStepKind,
      [](const StepFields& fr, const json& f, auto& fact) { get(fr, f, fact); });
}

json kv_derivation_json(const std::vector<KvDerivationStep>& steps) {
  return fact_list_json(steps, kv_derivation_step_to_json);
}

std::vector<KvDerivationStep> read_kv_derivation(const json& record, const std::string& origin) {
  return read_fact_list<KvDerivationStep>(record, "derivation", origin, [&](const json& item) {
    return kv_derivation_step_from_json(item, origin);
  });
}

}  // namespace kvb

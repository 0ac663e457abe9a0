#include "size/sizing_advice_json.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a sizing can write: GiB, ranks, bytes per token.
constexpr double kMaxGib = 1e9;
constexpr std::int64_t kMaxRanks = 1 << 20;
constexpr std::int64_t kMaxBytesPerToken = std::int64_t{1} << 50;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const DataParallelAttention&) { return "data-parallel-attention"; }
const char* kind_of(const TpAtMostKvHeads&) { return "tp-at-most-kv-heads"; }
const char* kind_of(const Fp8KvHalves&) { return "fp8-kv-halves"; }
const char* kind_of(const ShorterContextFits&) { return "shorter-context-fits"; }
const char* kind_of(const ConfigurationFits&) { return "configuration-fits"; }
const char* kind_of(const NothingFits&) { return "nothing-fits"; }
const char* kind_of(const WordedAlternative&) { return "worded"; }

json label_json(const ConfigurationLabel& c) { return {{"tp", c.tp}, {"pp", c.pp}, {"fp8", c.fp8}}; }

json data_parallel_json(const DataParallelTried& d) {
  return {{"dp", d.dp},
          {"tp", d.tp},
          {"tp_found", d.tp_found},
          {"mla", d.mla},
          {"kv_heads", d.kv_heads},
          {"tp_tokens", d.tp_tokens},
          {"engine_tokens", d.engine_tokens},
          {"engine_fits", d.engine_fits},
          {"chosen", d.chosen},
          {"weights_gib", d.weights_gib},
          {"tp_weights_gib", d.tp_weights_gib}};
}

// What the configuration search tried; null `fits` where nothing fit, null `data_parallel` where
// the search tried no DP x EP configuration.
json search_tried_json(const SearchTried& t) {
  json too_small = json::array();
  for (const auto& c : t.too_small) too_small.push_back(label_json(c));
  return {{"too_small", too_small},
          {"fits", t.found ? label_json(t.fits) : json(nullptr)},
          {"tokens", t.tokens},
          {"data_parallel", t.data_parallel ? data_parallel_json(*t.data_parallel) : json(nullptr)}};
}

// Each fact's fields, named as its struct's.
void put(const DataParallelAttention& a, json& j) { j["tp"] = a.tp; }
void put(const TpAtMostKvHeads& a, json& j) { j["kv_heads"] = a.kv_heads; }
void put(const Fp8KvHalves& a, json& j) {
  j["bytes_per_token"] = a.bytes_per_token;
  j["gpu_tokens"] = a.gpu_tokens;
}
void put(const ShorterContextFits& a, json& j) { j["max_model_len"] = a.max_model_len; }
void put(const ConfigurationFits& a, json& j) {
  j["tp"] = a.flags.tp;
  j["pp"] = a.flags.pp;
  j["fp8"] = a.flags.fp8;
  j["gpus"] = a.flags.gpus;
  j["nodes"] = a.flags.nodes;
  j["hardware"] = a.flags.hardware;
  j["gpu_blocks"] = a.gpu_blocks;
  j["gpu_tokens"] = a.gpu_tokens;
  j["weights_gib"] = a.weights_gib;
}
void put(const NothingFits& a, json& j) { j["tried"] = search_tried_json(a.tried); }
void put(const WordedAlternative& a, json& j) { j["text"] = a.text; }

// An alternative's fields read back, each error naming where (`origin: alternatives`).
class AdviceFields : public JsonFields {
 public:
  using JsonFields::JsonFields;
  int whole(const json& j, const char* key, std::int64_t lo, std::int64_t hi) const {
    return static_cast<int>(json_integer_in(j, key, lo, hi, where()));
  }
  std::int64_t tokens(const json& j, const char* key) const {
    return json_integer_in(j, key, 0, kMaxTokens, where());
  }
};

ConfigurationLabel label_from(const AdviceFields& r, const json& j) {
  if (!j.is_object()) throw UsageError(fmt::format("{}: a configuration must be an object", r.where()));
  return {r.whole(j, "tp", 1, kMaxRanks), r.whole(j, "pp", 1, kMaxRanks), r.flag(j, "fp8")};
}

DataParallelTried data_parallel_from(const AdviceFields& r, const json& j) {
  DataParallelTried d;
  d.dp = r.whole(j, "dp", 1, kMaxRanks);
  d.tp = r.whole(j, "tp", 1, kMaxRanks);
  d.tp_found = r.whole(j, "tp_found", 1, kMaxRanks);
  d.mla = r.flag(j, "mla");
  d.kv_heads = r.whole(j, "kv_heads", 0, kMaxRanks);
  d.tp_tokens = r.tokens(j, "tp_tokens");
  d.engine_tokens = r.tokens(j, "engine_tokens");
  d.engine_fits = r.flag(j, "engine_fits");
  d.chosen = r.flag(j, "chosen");
  d.weights_gib = r.required(j, "weights_gib", kMaxGib);
  d.tp_weights_gib = r.required(j, "tp_weights_gib", kMaxGib);
  return d;
}

SearchTried search_tried_from(const AdviceFields& r, const json& j) {
  SearchTried t;
  const auto small = j.find("too_small");
  if (small == j.end() || !small->is_array()) {
    throw UsageError(fmt::format("{}: field 'too_small' must be a list of configurations", r.where()));
  }
  for (const auto& c : *small) t.too_small.push_back(label_from(r, c));
  if (const auto fits = j.find("fits"); fits != j.end() && !fits->is_null()) {
    t.found = true;
    t.fits = label_from(r, *fits);
  }
  t.tokens = r.tokens(j, "tokens");
  if (const auto dp = j.find("data_parallel"); dp != j.end() && !dp->is_null()) {
    t.data_parallel = data_parallel_from(r, r.object(j, "data_parallel"));
  }
  return t;
}

void get(const AdviceFields& r, const json& j, DataParallelAttention& a) {
  a.tp = r.whole(j, "tp", 1, kMaxRanks);
}
void get(const AdviceFields& r, const json& j, TpAtMostKvHeads& a) {
  a.kv_heads = r.whole(j, "kv_heads", 1, kMaxRanks);
}
void get(const AdviceFields& r, const json& j, Fp8KvHalves& a) {
  a.bytes_per_token = json_integer_in(j, "bytes_per_token", 0, kMaxBytesPerToken, r.where());
  a.gpu_tokens = r.tokens(j, "gpu_tokens");
}
void get(const AdviceFields& r, const json& j, ShorterContextFits& a) {
  a.max_model_len = json_integer_in(j, "max_model_len", 1, kMaxTokens, r.where());
}
void get(const AdviceFields& r, const json& j, ConfigurationFits& a) {
  a.flags.tp = r.whole(j, "tp", 1, kMaxRanks);
  a.flags.pp = r.whole(j, "pp", 1, kMaxRanks);
  a.flags.fp8 = r.flag(j, "fp8");
  a.flags.gpus = r.whole(j, "gpus", 1, kMaxRanks);
  a.flags.nodes = r.whole(j, "nodes", 1, kMaxRanks);
  a.flags.hardware = r.text(j, "hardware");
  a.gpu_blocks = r.tokens(j, "gpu_blocks");
  a.gpu_tokens = r.tokens(j, "gpu_tokens");
  a.weights_gib = r.required(j, "weights_gib", kMaxGib);
}
void get(const AdviceFields& r, const json& j, NothingFits& a) {
  a.tried = search_tried_from(r, r.object(j, "tried"));
}
void get(const AdviceFields& r, const json& j, WordedAlternative& a) { a.text = r.text(j, "text"); }

}  // namespace

std::vector<std::string> sizing_alternative_kinds() {
  return fact_kinds<SizingAlternative>([](const auto& a) { return kind_of(a); });
}

json sizing_alternative_to_json(const SizingAlternative& a) {
  return fact_to_json(
      a, [](const auto& f) { return kind_of(f); }, [](const auto& f, json& j) { put(f, j); });
}

SizingAlternative sizing_alternative_from_json(const json& j, const std::string& origin) {
  if (j.is_string())
    return WordedAlternative{j.get<std::string>()};  // written before alternatives were facts
  return fact_from_json<SizingAlternative>(
      j, AdviceFields(origin + ": alternatives"), "an alternative", [](const auto& f) { return kind_of(f); },
      [](const AdviceFields& r, const json& f, auto& fact) { get(r, f, fact); });
}

json search_tried_to_json(const SearchTried& t) { return search_tried_json(t); }

SearchTried search_tried_field(const json& j, const std::string& where) {
  const AdviceFields r(where);
  return search_tried_from(r, r.object(j, "tried"));
}

json sizing_alternatives_json(const std::vector<SizingAlternative>& alternatives) {
  return fact_list_json(alternatives, sizing_alternative_to_json);
}

std::vector<SizingAlternative> read_sizing_alternatives(const json& record, const std::string& origin) {
  return read_fact_list<SizingAlternative>(
      record, "alternatives", origin, [&](const json& a) { return sizing_alternative_from_json(a, origin); });
}

}  // namespace kvb

#include "server/server_json.hpp"

#include <cstdint>

#include "core/json_file.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// One key of the server: how it is written and how it is read back.
struct ServerJsonField {
  const char* key;
  void (*write)(const ResolvedServer& s, json& doc);
  void (*read)(const json& doc, const std::string& origin, ResolvedServer& s);
};

// A text key, "" where absent or null (the core reader every document's reader uses).
std::string text(const json& doc, const char* key, const std::string& origin) {
  return JsonFields(origin).text(doc, key);
}

int ranks_or_one(const json& doc, const char* key, const std::string& origin) {
  return static_cast<int>(json_integer_or(doc, key, 1, kMaxParallelRanks, 1, origin));
}

std::int64_t count_or_zero(const json& doc, const char* key, const std::string& origin) {
  return json_integer_or(doc, key, 0, kMaxTokens, 0, origin);
}

// What runs where, and how it is split.
std::vector<ServerJsonField> identity_fields() {
  return {
      {"model", [](const ResolvedServer& s, json& d) { d["model"] = s.model; },
       [](const json& d, const std::string&, ResolvedServer& s) {
         s.model = d.at("model").get<std::string>();
       }},
      {"hf_id", [](const ResolvedServer& s, json& d) { d["hf_id"] = s.hf_id; },
       [](const json& d, const std::string& o, ResolvedServer& s) { s.hf_id = text(d, "hf_id", o); }},
      {"hardware", [](const ResolvedServer& s, json& d) { d["hardware"] = s.hardware; },
       [](const json& d, const std::string&, ResolvedServer& s) {
         s.hardware = d.at("hardware").get<std::string>();
       }},
      {"tensor_parallel_size",
       [](const ResolvedServer& s, json& d) { d["tensor_parallel_size"] = s.tensor_parallel_size; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.tensor_parallel_size = ranks_or_one(d, "tensor_parallel_size", o);
       }},
      {"pipeline_parallel_size",
       [](const ResolvedServer& s, json& d) { d["pipeline_parallel_size"] = s.pipeline_parallel_size; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.pipeline_parallel_size = ranks_or_one(d, "pipeline_parallel_size", o);
       }},
      {"data_parallel_size",
       [](const ResolvedServer& s, json& d) {
         if (s.data_parallel_size > 1) d["data_parallel_size"] = s.data_parallel_size;
       },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.data_parallel_size = ranks_or_one(d, "data_parallel_size", o);
       }},
      {"expert_parallel",
       [](const ResolvedServer& s, json& d) {
         if (s.expert_parallel) d["expert_parallel"] = true;
       },
       [](const json& d, const std::string&, ResolvedServer& s) {
         s.expert_parallel = d.value("expert_parallel", false);
       }},
  };
}

// Its limits and its dtypes.
std::vector<ServerJsonField> limit_fields() {
  return {
      {"max_model_len", [](const ResolvedServer& s, json& d) { d["max_model_len"] = s.max_model_len; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.max_model_len = count_or_zero(d, "max_model_len", o);
       }},
      {"max_num_batched_tokens",
       [](const ResolvedServer& s, json& d) { d["max_num_batched_tokens"] = s.max_num_batched_tokens; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.max_num_batched_tokens = count_or_zero(d, "max_num_batched_tokens", o);
       }},
      {"max_num_seqs", [](const ResolvedServer& s, json& d) { d["max_num_seqs"] = s.max_num_seqs; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.max_num_seqs = json_integer_or(d, "max_num_seqs", 0, kMaxNumSeqs, 0, o);
       }},
      {"weight_dtype", [](const ResolvedServer& s, json& d) { d["weight_dtype"] = s.weight_dtype; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.weight_dtype = text(d, "weight_dtype", o);
       }},
      {"kv_cache_dtype", [](const ResolvedServer& s, json& d) { d["kv_cache_dtype"] = s.kv_cache_dtype; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.kv_cache_dtype = text(d, "kv_cache_dtype", o);
       }},
      {"block_size", [](const ResolvedServer& s, json& d) { d["block_size"] = s.block_size; },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         s.block_size = static_cast<int>(json_integer_or(d, "block_size", 1, 1 << 20, 16, o));
       }},
      {"kv_offloading_backend",
       [](const ResolvedServer& s, json& d) { d["kv_offloading_backend"] = to_string(s.offloading_backend); },
       [](const json& d, const std::string& o, ResolvedServer& s) {
         const std::string given = text(d, "kv_offloading_backend", o);
         s.offloading_backend =
             parse_offloading_backend(given.empty() ? "native" : given, o + ": kv_offloading_backend");
       }},
  };
}

// In the order an operator reads a server: what runs where, how it is split, its limits, its dtypes.
const std::vector<ServerJsonField>& fields() {
  static const std::vector<ServerJsonField> table = [] {
    auto all = identity_fields();
    for (auto& f : limit_fields()) all.push_back(f);
    return all;
  }();
  return table;
}

}  // namespace

void write_server_json(const ResolvedServer& s, json& doc) {
  for (const auto& f : fields()) f.write(s, doc);
}

ResolvedServer read_server_json(const json& doc, const std::string& origin) {
  ResolvedServer s;
  for (const auto& f : fields()) f.read(doc, origin, s);
  return s;
}

std::vector<std::string> server_json_keys() {
  std::vector<std::string> keys;
  for (const auto& f : fields()) keys.emplace_back(f.key);
  return keys;
}

}  // namespace kvb

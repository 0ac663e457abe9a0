#include "size/offload_plan_json.hpp"

#include "core/json_file.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

using nlohmann::json;

constexpr double kMaxGib = 1e12;

json rule_to_json(const RuleFigures& r) {
  return {{"block_size", r.block_size},
          {"world_size", r.world_size},
          {"replicated", r.replicated},
          {"session_tokens", r.session_tokens},
          {"session_gib", r.session_gib},
          {"host_gb", r.host_gb},
          {"host_dram_fraction", r.host_dram_fraction},
          {"gpus_per_node", r.gpus_per_node},
          {"gib", r.gib},
          {"below_floor", r.below_floor},
          {"requested_max_model_len",
           r.requested_max_model_len ? json(*r.requested_max_model_len) : json(nullptr)},
          {"sessions_given", r.sessions_source.given},
          {"gpu_sessions", r.sessions_source.gpu_sessions}};
}

RuleFigures rule_from_json(const JsonFields& r, const json& j) {
  RuleFigures f;
  f.block_size = static_cast<int>(r.integer(j, "block_size", 1, kMaxCount));
  f.world_size = static_cast<int>(r.integer(j, "world_size", 1, kMaxCount));
  f.replicated = r.flag(j, "replicated");
  f.session_tokens = r.integer(j, "session_tokens", 0, kMaxTokens);
  f.session_gib = r.required(j, "session_gib", kMaxGib);
  f.host_gb = r.required(j, "host_gb", kMaxGib);
  f.host_dram_fraction = r.required(j, "host_dram_fraction", 1);
  f.gpus_per_node = static_cast<int>(r.integer(j, "gpus_per_node", 1, kMaxCount));
  f.gib = static_cast<int>(r.integer(j, "gib", 0, static_cast<std::int64_t>(kMaxTierGib)));
  f.below_floor = r.flag(j, "below_floor");
  if (const auto it = j.find("requested_max_model_len"); it != j.end() && !it->is_null())
    f.requested_max_model_len = r.integer(j, "requested_max_model_len", 1, kMaxTokens);
  f.sessions_source = {.given = r.flag(j, "sessions_given"),
                       .gpu_sessions = r.required(j, "gpu_sessions", static_cast<double>(kMaxCount))};
  return f;
}

}  // namespace

json offload_to_json(const OffloadPlan& o) {
  json j = {{"cpu_block_bytes", o.cpu_block_bytes},
            {"tokens_per_gib", o.tokens_per_gib},
            {"sessions", o.sessions},
            {"wanted_gib", o.wanted_gib},
            {"cap_gib", o.cap_gib},
            {"floor_gib", o.floor_gib},
            {"capped", o.capped},
            {"cpu_tokens", o.cpu_tokens},
            {"pinned_gib_per_rank", o.pinned_gib_per_rank},
            {"rule", o.rule ? rule_to_json(*o.rule) : json(nullptr)}};
  if (o.given_gib) {
    j["given_gib"] = *o.given_gib;
    j["given_num_cpu_blocks"] = o.given_num_cpu_blocks;
    j["given_cpu_tokens"] = o.given_cpu_tokens;
  }
  return j;
}

void read_offload(const json& j, const std::string& where, OffloadPlan& o) {
  const JsonFields r(where + ": offload");
  o.cpu_block_bytes = r.count(j, "cpu_block_bytes", kMaxTokens);
  o.tokens_per_gib = r.real(j, "tokens_per_gib", kMaxTokens);
  o.sessions = static_cast<int>(r.count(j, "sessions", kMaxCount));
  o.wanted_gib = r.real(j, "wanted_gib", kMaxGib);
  o.cap_gib = r.real(j, "cap_gib", kMaxGib);
  o.floor_gib = r.real(j, "floor_gib", kMaxGib);  // absent before 2026-11-30: 0
  o.capped = j.value("capped", false);
  o.cpu_tokens = r.count(j, "cpu_tokens", kMaxTokens);
  o.pinned_gib_per_rank = r.real(j, "pinned_gib_per_rank", kMaxGib);
  if (const auto it = j.find("rule"); it != j.end() && !it->is_null()) o.rule = rule_from_json(r, *it);
  if (j.contains("given_gib")) {
    o.given_gib = json_number_in(j, "given_gib", 0, kMaxTierGib, r.where());
    o.given_num_cpu_blocks = r.count(j, "given_num_cpu_blocks", kMaxTokens);
    o.given_cpu_tokens = r.count(j, "given_cpu_tokens", kMaxTokens);
  }
}

}  // namespace kvb

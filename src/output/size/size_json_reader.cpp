// Reads the kvbench/size/v1 document back into SizeDocument (output/size/size_json.hpp): each result a
// Sizing. Figures no configuration can have (a TP of 1410065408, 1e300 tokens, a negative tier) are a broken
// file, refused naming it: the report draws what it reads.
#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "output/size/size_json.hpp"
#include "perf/link_profile_json.hpp"
#include "perf/time_model_terms_json.hpp"
#include "server/server_json.hpp"
#include "size/engine_notes_json.hpp"
#include "size/kv_derivation_json.hpp"
#include "size/kv_layout_json.hpp"
#include "size/offload_plan_json.hpp"
#include "size/sizing_advice_json.hpp"
#include "size/sizing_notes_json.hpp"
#include "size/sizing_warnings_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

constexpr double kMaxGib = 1e12;
constexpr double kMaxSeconds = 1e12;

// Counts of tokens and blocks, and the flags of a result.
class Reader : public JsonFields {
 public:
  using JsonFields::JsonFields;
  std::int64_t count(const json& j, const char* key, std::int64_t hi = kMaxTokens) const {
    return JsonFields::count(j, key, hi);
  }
  bool flag(const json& j, const char* key, bool fallback = false) const { return j.value(key, fallback); }
};

MemoryBudget budget(const Reader& r, const json& b) {
  MemoryBudget m;
  m.total_gib = r.real(b, "total_gib", kMaxGib);
  m.utilization = r.real(b, "gpu_memory_utilization", 1);
  m.weights_gib = r.real(b, "weights_gib", kMaxGib);
  m.activation_gib = r.real(b, "activation_gib", kMaxGib);
  m.sampler.gib = r.real(b, "sampler_warmup_gib", kMaxGib);  // absent before 2026-11-28: 0
  m.sampler.requests = r.count(b, "sampler_warmup_requests");
  m.sampler.bytes_per_logit = static_cast<int>(r.count(b, "sampler_bytes_per_logit", 64));
  m.cuda_graph_gib = r.real(b, "cuda_graph_gib", kMaxGib);
  m.non_torch_gib = r.real(b, "non_torch_gib", kMaxGib);
  m.from_kv_cache_memory = r.flag(b, "from_kv_cache_memory");
  m.model_note = r.text(b, "model");
  return m;
}

OffloadPlan offload(const Reader& r, const json& row) {
  OffloadPlan o;
  if (const auto it = row.find("offload"); it != row.end()) read_offload(*it, r.where(), o);
  if (const auto it = row.find("recommendation"); it != row.end()) {
    o.recommendation = recommendation_from_json(*it, r.where());
  } else {  // files written before it: the figure alone
    o.recommendation.kv_offloading_size_gib =
        json_number_in(row, "recommended_kv_offloading_size_gib", 0, kMaxTierGib, r.where());
  }
  if (const auto it = row.find("num_cpu_blocks"); it != row.end() && !it->is_null())
    o.num_cpu_blocks = r.count(row, "num_cpu_blocks");
  if (const auto it = row.find("host_memory"); it != row.end() && !it->is_null())
    o.host_memory = host_footprint_from_json(*it);
  return o;
}

ReloadVsRecompute reload(const Reader& r, const json& j) {
  ReloadVsRecompute x;
  x.tokens = r.count(j, "tokens");
  x.reload_s = r.real(j, "reload_s", kMaxSeconds);
  x.recompute_s = r.real(j, "recompute_s", kMaxSeconds);
  x.link_gbps = r.real(j, "link_gbps", 1e9);
  x.per_copy_us = r.real(j, "per_copy_us", kMaxSeconds);
  // Documents written before the link and the step model were recorded held their words
  // ("link_source", "recompute_model"): they read without them.
  if (const auto it = j.find("link"); it != j.end() && !it->is_null())
    x.link = link_profile_from_json(*it, r.where() + ": reload_vs_recompute");
  x.link_given = r.flag(j, "link_given", false);
  x.peak_tflops = r.real(j, "peak_tflops", 1e9);
  x.efficiency = r.real(j, "efficiency", 1);
  if (const auto it = j.find("break_even_tokens"); it != j.end() && !it->is_null())
    x.break_even_tokens = r.count(j, "break_even_tokens");
  (void)r.text(j, "verdict");  // required, and worded again from the figures by the writer
  if (const auto it = j.find("recompute_terms"); it != j.end() && !it->is_null())
    x.recompute_terms = time_model_terms_from_json(*it, r.where() + ": reload_vs_recompute");
  x.chunk_tokens = r.count(j, "chunk_tokens");
  return x;
}

void read_engine(const Reader& r, const json& j, Sizing& s) {
  s.engine = parse_engine(j.value("engine", std::string("vllm")), r.where() + ": engine");
  s.engine_command = r.text(j, "engine_command");
  s.engine_notes = read_engine_notes(j, r.where());
  if (const auto it = j.find("dynamo"); it != j.end()) {
    s.kvbm_cpu_cache_gb = r.real(*it, "kvbm_cpu_cache_gb", kMaxGib);
    s.kvbm_host_blocks = r.count(*it, "kvbm_host_blocks");
    if (!it->at("kvbm_leader_worker_init_timeout_s").is_null())
      s.kvbm_init_timeout_s = static_cast<int>(r.count(*it, "kvbm_leader_worker_init_timeout_s", 1 << 30));
  }
  if (const auto it = j.find("sglang"); it != j.end()) {
    s.hicache_size_gb_per_rank = r.real(*it, "hicache_size_gb_per_rank", kMaxGib);
    s.hicache_ratio = r.real(*it, "hicache_ratio", kMaxGib);
  }
}

// A document written before the layout was recorded: one that reproduces its figures.
KvLayout older_layout(const Reader& r, const json& j, const Sizing& s) {
  const auto kv_bytes = json_integer_in(j, "kv_bytes_per_token", 1, std::int64_t{1} << 32, r.where());
  const auto log_tokens = json_integer_in(j, "gpu_kv_tokens", 0, kMaxTokens, r.where());
  auto l = layout_from_figures(
      {.bytes_per_token = kv_bytes,
       .bytes_per_token_all_layers = r.count(j, "kv_bytes_per_token_all_layers", std::int64_t{1} << 40),
       .page_bytes = r.count(j, "page_bytes", std::int64_t{1} << 40),
       .groups = static_cast<int>(json_integer_or(j, "kv_cache_groups", 0, 1 << 20, 1, r.where())),
       .replicated = r.flag(j, "kv_replicated"),
       // The table's figure was the log figure for a uniform model (files before it: always).
       .uniform =
           json_integer_or(j, "gpu_context_tokens", 0, kMaxTokens, log_tokens, r.where()) == log_tokens});
  l.block_size = s.server.block_size;
  return l;
}

void read_layout_and_pool(const Reader& r, const json& j, Sizing& s) {
  if (const auto it = j.find("kv_layout"); it != j.end()) {
    s.layout = kv_layout_from_json(*it, r.where());
  } else {
    s.layout = older_layout(r, j, s);
  }
  s.layout.derivation = read_kv_derivation(j, r.where());
  if (const auto it = j.find("budget"); it != j.end()) s.budget = budget(r, *it);
  s.kv_gib_available = json_number_or(j, "kv_gib_available", -kMaxGib, kMaxGib, 0, r.where());
  s.weights_fit = j.at("weights_fit").get<bool>();
  s.num_gpu_blocks = r.count(j, "num_gpu_blocks");
  s.gpu_kv_tokens = json_integer_in(j, "gpu_kv_tokens", 0, kMaxTokens, r.where());
  s.gpu_kv_tokens_capacity = r.count(j, "gpu_kv_tokens_capacity");
  s.blocks_per_request = r.count(j, "blocks_per_request");  // absent before 2026-11-30: 0
  s.max_concurrency = json_number_in(j, "max_concurrency", 0, kMaxTokens, r.where());
  s.fits = r.flag(j, "fits");
  s.kv_gib_needed_per_request = r.real(j, "kv_gib_needed_per_request", kMaxGib);
  s.estimated_max_model_len = r.count(j, "estimated_max_model_len");
}

// size --secondary-tier-size's plan (absent before it existed, or without the flag).
void read_secondary(const Reader& r, const json& t, Sizing& s) {
  SecondaryTierPlan p;
  const auto kind = secondary_kind_from_name(r.text(t, "kind"));
  if (!kind)
    throw UsageError(
        fmt::format("{}: secondary_tier.kind '{}': expected vllm-tiering-fs, simple-disk, "
                    "lmcache-local-disk, sglang-hicache-file or dynamo-kvbm-disk",
                    r.where(), r.text(t, "kind")));
  p.kind = *kind;
  p.gib = json_number_in(t, "size_gib", 0, kMaxTierGib, r.where());
  p.ranks = static_cast<int>(json_integer_in(t, "ranks", 1, kMaxParallelRanks, r.where()));
  p.bytes_per_rank = static_cast<std::uint64_t>(r.count(t, "bytes_per_rank", std::int64_t{1} << 62));
  p.cpu_bytes = static_cast<std::uint64_t>(r.count(t, "cpu_bytes_to_use", std::int64_t{1} << 62));
  p.simulated = t.value("simulated", false);                      // the rules path's plan writes none
  p.dir = t.value("root_dir", std::string(kTierDirPlaceholder));  // none: the placeholder was written
  if (t.contains("engine_size")) p.engine_size = json_number_in(t, "engine_size", 0, 1e12, r.where());
  s.secondary = p;
  s.secondary_command = r.text(t, "command");  // its "notes" are the plan's words, worded again by the writer
}

Sizing record(const json& j, const std::string& origin) {
  Sizing s;
  s.server = read_server_json(j, origin);  // the server's keys, from its one table
  const Reader r(
      fmt::format("{}: result {} on {}", origin, s.server.model, s.server.hardware));  // for its errors
  // A sizing is always of a context of at least one token: 0 is a document broken or cut short.
  if (s.server.max_model_len < 1)
    throw UsageError(
        fmt::format("{}: the server's max-model-len is 0 or missing; expected a whole number "
                    "of tokens from 1 to {}",
                    r.where(), kMaxTokens));
  read_layout_and_pool(r, j, s);
  if (!j.at("recommended_kv_offloading_size_gib").is_null()) s.offload = offload(r, j);
  if (const auto it = j.find("reload_vs_recompute"); it != j.end()) s.reload = reload(r, *it);
  read_engine(r, j, s);
  s.vllm_command = j.at("vllm_command").get<std::string>();
  s.vllm_command_legacy = r.text(j, "vllm_command_legacy");
  s.rocm_docker_command = r.text(j, "rocm_docker_command");
  s.vllm_version_note = r.text(j, "vllm_version_note");
  s.warnings = read_sizing_warnings(j, r.where());
  s.alternatives = read_sizing_alternatives(j, r.where());
  s.notes = read_sizing_notes(j, r.where());
  if (const auto it = j.find("secondary_tier"); it != j.end()) read_secondary(r, *it, s);
  return s;
}

}  // namespace

SizeDocument size_document_from_json(const nlohmann::json& doc, const std::string& origin) {
  SizeDocument d;
  if (const auto it = doc.find("tool"); it != doc.end()) d.tool = it->get<std::string>();
  d.interrupted = doc.value("interrupted", false);
  for (const auto& j : doc.at("results")) d.results.push_back(record(j, origin));
  return d;
}

}  // namespace kvb

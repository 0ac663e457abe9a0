// The kvbench/size/v1 writer: a Sizing's facts as JSON, with the wording fields JSON users read
// (the reload verdict) produced by the same printer as the text (output/size/size_text.hpp).
#include "output/size/size_json_writer.hpp"

#include <algorithm>
#include <cmath>

#include "core/json_file.hpp"
#include "fleet/fleet_spec.hpp"
#include "kvbench_config.hpp"
#include "output/size/secondary_advice_text.hpp"
#include "output/size/secondary_plan_text.hpp"
#include "output/size/size_text.hpp"
#include "output/size/sizing_advice_text.hpp"
#include "output/size/tier_advice_text.hpp"
#include "perf/expected_error_json.hpp"
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
#include "size/tier_advice_json.hpp"

namespace kvb {

namespace {

nlohmann::json curve_point_to_json(const TierCurvePoint& c) {
  return {{"kv_offloading_size_gib", c.kv_offloading_size_gib},
          {"output_tokens_per_s", c.output_tokens_per_s},
          {"ttft_p50_s", c.ttft_p50_s},
          {"ttft_p99_s", c.ttft_p99_s},
          {"cpu_hit_rate", c.cpu_hit_rate},
          {"gpu_hit_rate", c.gpu_hit_rate},
          {"goodput_rps", c.goodput_rps},
          {"h2d_utilization", c.h2d_utilization},
          {"d2h_utilization", c.d2h_utilization},
          {"engine_busy_share", c.engine_busy_share},
          {"gain", c.gain},
          {"costliest_mechanism",
           c.costliest_mechanism.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.costliest_mechanism)},
          {"costliest_share", c.costliest_share},
          {"busiest_ttft_p99_s", c.busiest_ttft_p99_s},
          {"replica_hit_rate_min", c.replica_hit_rate_min},
          {"replica_hit_rate_max", c.replica_hit_rate_max},
          {"output_tokens_per_s_min", c.output_tokens_per_s_min},
          {"output_tokens_per_s_max", c.output_tokens_per_s_max},
          {"ttft_p99_min_s", c.ttft_p99_min_s},
          {"ttft_p99_max_s", c.ttft_p99_max_s},
          {"gain_spread", c.gain_spread}};
}

nlohmann::json producer_capacity_to_json(const PrefixProducerCapacity& c) {
  return {{"server_tokens", c.server_tokens}, {"lru_capacity_per_server", c.lru_capacity_per_server}};
}

// llm-d's approximate prefix producer, in its own units (size/router_capacity.hpp).
nlohmann::json router_capacities_to_json(const RouterCapacities& r) {
  using nlohmann::json;
  return {{"server_block_size", r.server_block_size},
          {"producer_block_tokens", r.producer_block_tokens},
          {"gpu", producer_capacity_to_json(r.gpu)},
          {"autotune_gpu_entries", r.autotune_gpu_entries},
          {"cpu", r.cpu ? producer_capacity_to_json(*r.cpu) : json(nullptr)}};
}

nlohmann::json fleet_tier_to_json(const FleetTier& f) {
  using nlohmann::json;
  return {{"replicas", f.fleet.replicas},
          {"router", to_string(f.fleet.router)},
          {"replicas_per_node", f.replicas_per_node},
          {"nodes", f.nodes},
          {"host_bytes_per_replica", f.host_bytes_per_replica},
          {"host_bytes_per_node", f.host_bytes_per_node},
          {"host_bytes_total", f.host_bytes_total},
          {"compared_router", f.compared_router ? json(to_string(*f.compared_router)) : json(nullptr)},
          {"compared_kv_offloading_size_gib", f.compared_gib},
          {"compared_pays", f.compared_pays},
          {"compared_gain", f.compared_gain},
          {"compared_metric", f.compared_metric ? json(to_string(*f.compared_metric)) : json(nullptr)},
          {"llmd_prefix_producer",
           f.router_capacities ? router_capacities_to_json(*f.router_capacities) : json(nullptr)}};
}

// The simulated recommendation's own keys: its workload, the deciding metric, the trace's curve.
void add_simulation_keys(nlohmann::json& j, const TierRecommendation& r) {
  using nlohmann::json;
  j["decided_by"] = r.decided_by ? json(to_string(*r.decided_by)) : json(nullptr);
  j["expected_error"] = r.expected ? expected_error_to_json(*r.expected) : json(nullptr);
  if (!r.trace_curve.empty()) {
    json trace = json::array();
    for (const auto& [gib, hit] : r.trace_curve)
      trace.push_back({{"size_gib", gib}, {"prefix_hit_rate", hit}});
    j["trace_curve"] = trace;
  }
  j["workload"] = r.workload;
  j["requests_per_point"] = r.requests;
  j["seeds"] = r.seeds;
  j["gain_spread"] = r.gain_spread;
  if (r.fleet) j["fleet"] = fleet_tier_to_json(*r.fleet);
  if (r.secondary) j["secondary_tier_advice"] = secondary_advice_to_json(*r.secondary);
  j["model"] =
      "computed: kvbench's discrete-event simulator over the stated time and link models, not measured";
}

}  // namespace

nlohmann::json recommendation_to_json(const TierRecommendation& r) {
  using nlohmann::json;
  json curve = json::array();
  for (const auto& c : r.curve) curve.push_back(curve_point_to_json(c));
  json j = {{"basis", to_string(r.basis)},
            {"objective", r.objective ? json(to_string(*r.objective)) : json(nullptr)},
            {"kv_offloading_size_gib", r.kv_offloading_size_gib},
            {"pays", r.pays},
            {"costs", r.costs},
            {"gain", r.gain},
            {"bound", to_string(r.bound)},
            {"floor_gib", r.floor_gib},
            {"cap_gib", r.cap_gib},
            {"curve", curve},
            {"startup_pinning_s",
             {{"low", r.pin_seconds_low},
              {"high", r.pin_seconds_high},
              {"cost", r.pinning ? pinning_cost_to_json(*r.pinning) : json(nullptr)}}}};
  write_tier_advice(r.verdict, r.steps, j);  // facts; output/size/tier_advice_text words them
  if (r.simulated()) add_simulation_keys(j, r);
  return j;
}

namespace {

nlohmann::json reload_to_json(const ReloadVsRecompute& r) {
  using nlohmann::json;
  return {
      {"tokens", r.tokens},
      {"reload_s", r.reload_s},
      {"recompute_s", r.recompute_s},
      {"link_gbps", r.link_gbps},
      {"per_copy_us", r.per_copy_us},
      {"link", r.link ? link_profile_to_json(*r.link) : json(nullptr)},
      {"link_given", r.link_given},
      {"peak_tflops", r.peak_tflops},
      {"efficiency", r.efficiency},
      {"break_even_tokens", r.break_even_tokens ? json(*r.break_even_tokens) : json(nullptr)},
      {"verdict", reload_verdict_text(r)},
      {"model", kReloadModelNote},
      {"recompute_terms", r.recompute_terms ? time_model_terms_to_json(*r.recompute_terms) : json(nullptr)},
      {"chunk_tokens", r.chunk_tokens}};
}

// The engine the command is for, and what --engine sglang / dynamo sized for it.
void add_engine(nlohmann::json& j, const Sizing& s) {
  j["engine"] = to_string(s.engine);
  if (!s.engine_command.empty()) {
    j["engine_command"] = s.engine_command;
    j["engine_notes"] = engine_notes_json(s.engine_notes);  // facts; engine_notes_text words them
  }
  if (s.engine == EngineKind::kDynamo && s.kvbm_cpu_cache_gb > 0) {
    j["dynamo"] = {
        {"kvbm_cpu_cache_gb", s.kvbm_cpu_cache_gb},
        {"kvbm_host_blocks", s.kvbm_host_blocks},
        {"kvbm_leader_worker_init_timeout_s",
         s.kvbm_init_timeout_s > 0 ? nlohmann::json(s.kvbm_init_timeout_s) : nlohmann::json(nullptr)}};
  }
  if (s.engine == EngineKind::kSglang && s.hicache_size_gb_per_rank > 0) {
    j["sglang"] = {{"hicache_size_gb_per_rank", s.hicache_size_gb_per_rank},
                   {"hicache_ratio", s.hicache_ratio}};
  }
}

void add_layout_and_budget(nlohmann::json& j, const Sizing& s) {
  // The layout whole (the reader rebuilds it), and the figures users read from it.
  j["kv_layout"] = kv_layout_to_json(s.layout);
  j["kv_bytes_per_token"] = s.layout.kv_bytes_per_token();
  j["kv_bytes_per_token_all_layers"] = s.layout.kv_bytes_per_token_all_layers();
  j["kv_replicated"] = s.layout.replicated;
  j["kv_cache_groups"] = s.layout.num_groups;
  j["page_bytes"] = s.layout.page_bytes;
  j["budget"] = {{"total_gib", s.budget.total_gib},
                 {"gpu_memory_utilization", s.budget.utilization},
                 {"weights_gib", s.budget.weights_gib},
                 {"activation_gib", s.budget.activation_gib},
                 {"sampler_warmup_gib", s.budget.sampler.gib},
                 {"sampler_warmup_requests", s.budget.sampler.requests},
                 {"sampler_bytes_per_logit", s.budget.sampler.bytes_per_logit},
                 {"cuda_graph_gib", s.budget.cuda_graph_gib},
                 {"non_torch_gib", s.budget.non_torch_gib},
                 {"from_kv_cache_memory", s.budget.from_kv_cache_memory},
                 {"model", s.budget.model_note}};
}

void add_pool_and_tier(nlohmann::json& j, const Sizing& s) {
  using nlohmann::json;
  j["kv_gib_available"] = s.kv_gib_available;
  j["weights_fit"] = s.weights_fit;
  j["num_gpu_blocks"] = s.num_gpu_blocks;
  j["gpu_kv_tokens"] = s.gpu_kv_tokens;
  j["gpu_kv_tokens_capacity"] = s.gpu_kv_tokens_capacity;
  j["gpu_context_tokens"] = s.gpu_context_tokens();
  j["blocks_per_request"] = s.blocks_per_request;
  j["max_concurrency"] = s.max_concurrency;
  j["fits"] = s.fits;
  j["kv_gib_needed_per_request"] = s.kv_gib_needed_per_request;
  j["estimated_max_model_len"] = s.estimated_max_model_len;
  // Whole GiB by construction (the rule rounds, the simulated grid is whole GiB): written as an integer.
  j["recommended_kv_offloading_size_gib"] =
      s.offload ? json(std::llround(s.offload->recommended_gib())) : json(nullptr);
  j["num_cpu_blocks"] = s.offload ? json(s.offload->num_cpu_blocks) : json(nullptr);
  if (s.offload) j["offload"] = offload_to_json(*s.offload);
  // The recommended tier's real host footprint for --vllm-version (native vLLM tier only).
  j["host_memory"] =
      s.offload && s.offload->host_memory ? host_memory_json(*s.offload->host_memory) : json(nullptr);
  if (s.offload) j["recommendation"] = recommendation_to_json(s.offload->recommendation);
  if (s.reload) j["reload_vs_recompute"] = reload_to_json(*s.reload);
}

}  // namespace

namespace {

// The secondary tier plan's words (output/size/secondary_plan_text), from the plan the record
// holds: a read-back document is worded as a live run; a simulated tiering plan adds the Simple
// disk backend's alternative.
std::vector<std::string> secondary_notes(const Sizing& s) {
  auto lines = secondary_plan_lines(*s.secondary);
  if (!s.secondary_command.empty() && s.secondary->kind == SecondaryTierKind::kTieringFs)
    for (auto& line : simple_alternative_lines(*s.secondary)) lines.push_back(std::move(line));
  return lines;
}

}  // namespace

nlohmann::json sizing_to_json(const Sizing& s) {
  nlohmann::json j;
  write_server_json(s.server, j);  // the server's keys, from its one table
  add_layout_and_budget(j, s);
  add_pool_and_tier(j, s);
  add_engine(j, s);
  j["vllm_command"] = s.vllm_command;
  j["vllm_command_legacy"] = s.vllm_command_legacy;
  if (!s.rocm_docker_command.empty()) j["rocm_docker_command"] = s.rocm_docker_command;
  j["vllm_version_note"] = s.vllm_version_note;
  j["derivation"] = kv_derivation_json(s.layout.derivation);     // facts; kv_layout_text words them
  j["warnings"] = sizing_warnings_json(s.warnings);              // facts; sizing_warning_text words them
  j["alternatives"] = sizing_alternatives_json(s.alternatives);  // facts; sizing_advice_text words them
  j["notes"] = sizing_notes_json(s.notes);                       // facts; sizing_advice_text words them
  if (s.secondary) {
    const auto& p = *s.secondary;
    j["secondary_tier"] = {{"kind", secondary_kind_name(p.kind)},
                           {"size_gib", p.gib},
                           {"ranks", p.ranks},
                           {"bytes_per_rank", p.bytes_per_rank},
                           {"cpu_bytes_to_use", p.cpu_bytes},
                           {"command", s.secondary_command},
                           {"notes", secondary_notes(s)}};
    if (p.simulated) j["secondary_tier"]["simulated"] = true;
    if (p.dir != kTierDirPlaceholder) j["secondary_tier"]["root_dir"] = p.dir;  // --secondary-tier-dir
    if (p.engine_size > 0) j["secondary_tier"]["engine_size"] = p.engine_size;  // LMCache's or KVBM's key
  }
  return j;
}

namespace {

nlohmann::json document_json(const std::string& tool, const std::vector<Sizing>& results, bool interrupted) {
  nlohmann::json doc;
  doc["schema"] = kSizeSchema;
  doc["tool"] = tool;
  doc["results"] = nlohmann::json::array();
  for (const auto& r : results) doc["results"].push_back(sizing_to_json(r));
  // A signal stopped a tier-size sweep: the document says so at its top too.
  if (interrupted) doc["interrupted"] = true;
  return doc;
}

}  // namespace

nlohmann::json size_document_json(const SizeDocument& d) {
  return document_json(d.tool, d.results, d.interrupted);
}

nlohmann::json sizings_document(const std::vector<Sizing>& all) {
  const bool interrupted = std::any_of(all.begin(), all.end(), [](const Sizing& s) {
    return s.offload && s.offload->recommendation.bound == TierBound::kInterrupted;
  });
  return document_json(std::string("kvbench ") + KVBENCH_VERSION, all, interrupted);
}

}  // namespace kvb

#include "size/offload_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "size/pinning_cost.hpp"
#include "size/vllm_command.hpp"

namespace kvb {

int cpu_tensors_per_rank(const KvLayout& l, const VllmVersion& v) {
  // Before 0.12 each layer had its own CPU tensor; from 0.12 one cross-layer block spans every
  // layer of a uniform model (REFERENCE: the vLLM blog on the offloading connector), while a
  // hybrid model keeps one tensor per layer slot of its KV cache groups (issue #53042: 24).
  if (v < VllmVersion{0, 12, 0}) {
    int layers = 0;
    for (const auto& t : l.types) layers += t.layers;
    return std::max(1, layers);
  }
  return l.uniform ? 1 : std::max(1, l.group_size);
}

double raise_to_floor(double gib, double floor_gib, double cap_gib) {
  const double above = std::floor(floor_gib) + 1;
  return gib <= floor_gib && above <= cap_gib ? above : gib;
}

std::optional<HostFootprint> tier_footprint(const SizingFit& s, const SizingInputs& in, double gib) {
  if (in.engine != EngineKind::kVllm || in.offloading_backend == OffloadingBackend::kLmcache || gib <= 0)
    return {};
  const auto connector = in.offloading_backend == OffloadingBackend::kSimple ? TierConnector::kSimple
                                                                             : TierConnector::kOffloading;
  return tier_host_footprint(gib * kGiB, s.server.world_size(),
                             cpu_tensors_per_rank(s.layout, in.vllm_version), in.vllm_version, connector);
}

std::int64_t cpu_blocks_for(double gib, std::int64_t cpu_block_bytes) {
  if (cpu_block_bytes <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(gib * kGiB / static_cast<double>(cpu_block_bytes)));
}

namespace {

void set_pinning(TierRecommendation& r, const HardwareSpec& hw) {
  const auto cost = pinning_cost(hw);
  r.pin_seconds_low = r.kv_offloading_size_gib * cost.register_s_per_gib;
  r.pin_seconds_high = r.kv_offloading_size_gib * cost.host_alloc_s_per_gib;
  r.pinning = cost;
}

// The rule's recommendation: `gib` for the sessions kept warm, raised to the floor or capped.
TierRecommendation rule_recommendation(const OffloadPlan& p, int gib, const SessionsSource& source) {
  TierRecommendation r;
  r.basis = RecommendationBasis::kRule;
  r.kv_offloading_size_gib = gib;
  r.floor_gib = p.floor_gib;
  r.cap_gib = p.cap_gib;
  r.bound =
      p.capped ? TierBound::kDramCap : (gib > std::ceil(p.wanted_gib) ? TierBound::kFloor : TierBound::kRule);
  r.verdict = RuleVerdict{.sessions = p.sessions, .source = source, .not_simulated = std::nullopt};
  return r;
}

// Every figure that follows from the one recommended size: blocks, tokens, per-rank GiB, the
// host footprint and the pinning time at start-up.
void apply_recommended_size(OffloadPlan& p, const SizingFit& s, const SizingInputs& in) {
  const double gib = p.recommended_gib();
  p.num_cpu_blocks = cpu_blocks_for(gib, p.cpu_block_bytes);
  p.cpu_tokens = p.num_cpu_blocks * s.layout.block_size;
  p.pinned_gib_per_rank = gib / s.server.world_size();
  p.lmcache_gib_per_rank = p.pinned_gib_per_rank;
  p.host_memory = tier_footprint(s, in, gib);
  set_pinning(p.recommendation, in.hw);
}

}  // namespace

namespace {

// The sessions of max-model-len the tier keeps warm: --concurrency, else twice the GPU pool's.
SessionsSource choose_sessions(OffloadPlan& p, const SizingFit& s, const SizingInputs& in) {
  if (in.concurrency) {
    p.sessions = *in.concurrency;
    return SessionsSource{.given = true, .gpu_sessions = s.max_concurrency};
  }
  // The tier is write-through, so it holds copies of what is on the GPU too; it pays when
  // it holds more than the GPU pool. Twice the GPU's full-length sessions (SGLang HiCache's
  // default host pool is 2x the device pool; Dynamo wants the CPU tier larger than the GPU).
  p.sessions = std::max(1, static_cast<int>(std::ceil(2.0 * s.max_concurrency)));
  return SessionsSource{.given = false, .gpu_sessions = s.max_concurrency};
}

// This instance's share of the nodes it spans: 4/8 of one 8-GPU node, or 4 whole nodes for TP 4
// on GH200 (one GPU per node), each with its own host DRAM.
double node_share(const SizingFit& s, const SizingInputs& in) {
  return static_cast<double>(s.server.world_size()) / in.hw.gpus_per_node;
}

// The rule's figures, worded by output/size/size_text (rule_reasoning_lines).
RuleFigures rule_figures(const SizingFit& s, const SizingInputs& in, double request_gib, int gib,
                         bool below_floor) {
  RuleFigures r;
  r.block_size = s.layout.block_size;
  r.world_size = s.server.world_size();
  r.replicated = s.layout.replicated;
  r.session_tokens = s.server.max_model_len;
  r.session_gib = request_gib;
  r.host_gb = in.host_memory_gb.value_or(in.hw.host_dram_gb);
  r.host_dram_fraction = in.host_dram_fraction;
  r.gpus_per_node = in.hw.gpus_per_node;
  r.gib = gib;
  r.below_floor = below_floor;
  return r;
}

}  // namespace

OffloadPlan plan_offload(const SizingFit& s, const SizingInputs& in) {
  OffloadPlan p;
  const auto& l = s.layout;
  // One offloaded block (block_size_factor 1: the lcm of one GPU block size is itself) holds
  // the block of every layer on every rank; replicated layouts store one copy per rank.
  p.cpu_block_bytes = l.block_bytes_all_layers() * s.server.world_size();
  p.tokens_per_gib = kGiB / static_cast<double>(p.cpu_block_bytes) * l.block_size;
  const std::int64_t request_blocks = std::max<std::int64_t>(1, s.blocks_per_request);
  const double request_gib = static_cast<double>(request_blocks) * l.block_size / p.tokens_per_gib;
  const auto source = choose_sessions(p, s, in);
  p.wanted_gib = request_gib * p.sessions;
  const double host_gb = in.host_memory_gb.value_or(in.hw.host_dram_gb);
  p.cap_gib = host_gb * 1e9 * in.host_dram_fraction * node_share(s, in) / kGiB;
  p.capped = p.wanted_gib > p.cap_gib;
  const double chosen = p.capped ? p.cap_gib : p.wanted_gib;
  int gib = std::max(1, static_cast<int>(p.capped ? std::floor(chosen) : std::ceil(chosen)));
  // vLLM's floor: the tier is write-through, so one no larger than the GPU pool holds only copies
  // of what the GPU holds (the vLLM blog on the offloading connector: size it above the GPU KV cache).
  const std::int64_t gpu_blocks = l.uniform ? s.num_gpu_blocks : s.gpu_kv_tokens / l.block_size;
  p.floor_gib = static_cast<double>(gpu_blocks) * static_cast<double>(p.cpu_block_bytes) / kGiB;
  const bool below_floor = gib <= p.floor_gib;
  gib = static_cast<int>(raise_to_floor(gib, p.floor_gib, p.cap_gib));
  p.rule = rule_figures(s, in, request_gib, gib, below_floor);
  p.rule->sessions_source = source;
  if (in.kv_offloading_size_gib) {
    p.given_gib = *in.kv_offloading_size_gib;
    p.given_num_cpu_blocks = cpu_blocks_for(*p.given_gib, p.cpu_block_bytes);
    p.given_cpu_tokens = p.given_num_cpu_blocks * l.block_size;
  }
  p.recommendation = rule_recommendation(p, gib, source);
  apply_recommended_size(p, s, in);
  return p;
}

OffloadPlan with_recommendation(OffloadPlan p, const SizingFit& s, const SizingInputs& in,
                                TierRecommendation r) {
  p.recommendation = std::move(r);
  apply_recommended_size(p, s, in);
  return p;
}

}  // namespace kvb

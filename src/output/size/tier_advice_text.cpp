#include "output/size/tier_advice_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <variant>

#include "core/units.hpp"

namespace kvb {
namespace {

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100); }

// What pays under an objective (size/tier_terms.hpp's thresholds), for "recommend no CPU tier".
std::string pays_rule(TierObjective o) {
  if (o == TierObjective::kBalanced) {
    return fmt::format(
        "neither TTFT p99 falls by {:.0f}% nor output throughput rises by {:.0f}% (with the other "
        "within {:.0f}%)",
        kBalancedTtftGain * 100, kPaysGain * 100, kBalancedMaxLoss * 100);
  }
  return fmt::format("under the {:.0f}% that pays for pinning and store traffic", kPaysGain * 100);
}

std::string interrupted_during(const InterruptedVerdict& v) {
  return fmt::format("the {} GiB tier's simulation", v.gib);
}

std::string costs_text(const TierCostsVerdict& v) {
  const auto mechanism =
      v.mechanism.empty()
          ? std::string(
                "no cost mechanism adds step time: the loss is in scheduling, GPU blocks held while "
                "stores drain and requests waiting on loads")
          : fmt::format("mostly {}: {} of the engine's step time", v.mechanism, percent(v.mechanism_share));
  return fmt::format("at this traffic a tier of {:g} GiB costs {:.1f}% output tok/s ({})", v.gib,
                     v.loss * 100, mechanism);
}

std::string verdict_text(const RuleVerdict& v) {
  const auto prefix = v.not_simulated ? not_simulated_text(*v.not_simulated) + "; " : std::string();
  return prefix +
         fmt::format(
             "{} full-length session{} kept warm ({}); no traffic simulated (size --workload simulates it)",
             v.sessions, v.sessions == 1 ? "" : "s", sessions_reason_text(v.sessions, v.source));
}
std::string verdict_text(const KneeVerdict& v) {
  return fmt::format(
      "the knee: {:g} GiB reaches {} of the best gain ({} at {:g} GiB), with {} of prompt tokens "
      "from the CPU tier",
      v.gib, percent(v.share_of_best), describe_gain(v.best_gain, v.metric), v.best_gib,
      percent(v.cpu_hit_rate));
}
std::string verdict_text(const NoRoomVerdict& v) {
  return fmt::format("the host-DRAM cap ({:.1f} GiB) leaves no room for a tier", v.cap_gib);
}
std::string verdict_text(const TierCostsVerdict& v) { return costs_text(v); }
std::string verdict_text(const NoReuseVerdict& v) {
  return fmt::format(
      "no reuse: no prompt shares a prefix with an earlier one (GPU prefix-cache hits {}, CPU-tier hits "
      "{} even at {:g} GiB), so a tier has nothing to serve",
      percent(v.gpu_hit_rate), percent(v.cpu_hit_rate), v.gib);
}
std::string verdict_text(const ReuseFitsGpuVerdict& v) {
  return fmt::format(
      "the reuse already fits the GPU cache: {} of prompt tokens hit the GPU prefix cache without a "
      "tier, and {:g} GiB of tier adds {}",
      percent(v.gpu_hit_rate), v.gib, percent(v.cpu_hit_rate));
}
std::string verdict_text(const TradedOffVerdict& v) {
  return fmt::format(
      "every size that gains also loses: at {:g} GiB {} but {} (more than the {:.0f}% the default "
      "objective allows)",
      v.gib, describe_gain(v.ttft_gain, TierObjective::kTtftP99),
      describe_gain(v.throughput_gain, TierObjective::kThroughput), kBalancedMaxLoss * 100);
}
std::string verdict_text(const ArrivalBoundVerdict& v) {
  return fmt::format(
      "arrival-bound: without a tier the engine is busy {} of the time, so the traffic, not the "
      "server, sets the throughput; the tier's CPU hits ({} of prompt tokens at {:g} GiB) shorten "
      "prefills instead",
      percent(v.engine_busy_share), percent(v.cpu_hit_rate), v.gib);
}
std::string verdict_text(const LinkBoundVerdict& v) {
  return fmt::format(
      "link-bound: reloading {} of prompt tokens keeps the host link busy {} of the time at {:g} GiB, "
      "no faster than recomputing them",
      percent(v.cpu_hit_rate), percent(v.h2d_utilization), v.gib);
}
std::string verdict_text(const ComputeBoundVerdict& v) {
  return fmt::format(
      "compute-bound: the prefill the tier saves ({} of prompt tokens at {:g} GiB) is a small share of "
      "the engine's work, which decode dominates",
      percent(v.cpu_hit_rate), v.gib);
}
std::string verdict_text(const WithinModelErrorVerdict& v) {
  const auto spread = v.spread > 0 ? fmt::format(" +/- {:.1f}%", v.spread * 100) : std::string();
  return fmt::format(
      "within the model's error: the best size, {:g} GiB, gains {}{} ({} of prompt tokens from the CPU "
      "tier), "
      "which less its spread over the draws is no more than the simulation's stated {:.1f}% error for this "
      "class of server; pinning a tier for a gain the model cannot resolve is no answer",
      v.gib, describe_gain(v.gain, v.metric), spread, percent(v.cpu_hit_rate), v.model_error * 100);
}
std::string verdict_text(const InterruptedVerdict& v) {
  return fmt::format(
      "interrupted ({}) during {} after {} tier size{}: no size recommended from a partial curve", v.signal,
      interrupted_during(v), v.sizes, v.sizes == 1 ? "" : "s");
}
std::string verdict_text(const WordedVerdict& v) { return v.text; }

std::string step_text(const FleetCandidatesStep& s) {
  return fmt::format(
      "candidate sizes per replica: the trace split over {} replicas as a {} router would send it{}",
      s.replicas, to_string(s.router),
      s.least_loaded_stand_in ? " (least-loaded's split needs service times: round-robin's stands "
                                "in for the candidates; each is simulated least-loaded)"
                              : "");
}
std::string step_text(const TraceCurveStep& s) {
  return fmt::format(
      "the trace's miss-ratio curve (computed: an LRU prefix cache over {} requests): an unbounded cache "
      "serves {} of prompt tokens, one of the {:.0f} GiB host-DRAM cap {}, one of the {:.1f} GiB GPU pool {}",
      s.requests, percent(s.unbounded_hit_rate), s.cap_gib, percent(s.hit_rate_at_cap), s.floor_gib,
      percent(s.hit_rate_at_floor));
}
std::string candidate_text(const TraceCandidate& c) {
  const std::string why = c.kind == CandidateKind::kAboveFloor ? std::string("vLLM's floor + 1")
                          : c.kind == CandidateKind::kShareOfCap
                              ? fmt::format("{:.0f}% of the cap's hit rate", c.share * 100)
                              : std::string("the cap, the curve still rising");
  return fmt::format("{} GiB ({}: {})", c.gib, why, percent(c.hit_rate));
}
std::string step_text(const TraceCandidatesStep& s) {
  std::string list;
  for (const auto& c : s.picked) list += (list.empty() ? "" : ", ") + candidate_text(c);
  return "simulated sizes from the curve's bends, each with the prefix hit rate the curve gives it: " + list;
}
std::string step_text(const OverloadedStep& s) {
  return fmt::format(
      "overloaded: without a tier the median request waits {} for its first token, so requests queue "
      "on this one server; {}",
      format_seconds(s.ttft_p50_s),
      s.trace ? "a cluster's trace fits one instance with --trace-sample F (e.g. 0.1)"
              : "lower the workload's rate or add servers");
}
std::string step_text(const PoolKneeStep& s) {
  const std::string smaller =
      s.smaller
          ? fmt::format("{:.0f}% fewer GPU KV blocks than these {} change output tok/s by {:+.1f}% and ",
                        s.pool_step * 100, format_count(s.gpu_blocks), *s.smaller * 100)
          : fmt::format("(a pool {:.0f}% smaller than these {} blocks cannot hold max-model-len) ",
                        s.pool_step * 100, format_count(s.gpu_blocks));
  return fmt::format(
      "caution, a knee of the GPU pool: without a tier, {}{:.0f}% more by {:+.1f}% (simulated); a "
      "difference in the pool that small (vLLM's own pool against kvbench's estimate, blocks a connector "
      "holds while it copies) moves the answer more than the tier's modelled costs do: measure with and "
      "without the tier before relying on it",
      smaller, s.pool_step * 100, s.larger * 100);
}
std::string step_text(const SimulatedStep& s) {
  return fmt::format(
      "simulated {} tier sizes of {} ({} requests each, {}), from none to the {:.0f} GiB host-DRAM cap{}",
      s.sizes, s.workload, s.requests,
      s.draws == 1
          ? std::string("one draw for all")
          : fmt::format("{} draws each, the same draws at every size; a gain counts only above half the "
                        "range of the draws' gains",
                        s.draws),
      s.cap_gib,
      s.judged_on ? fmt::format("; judged on {}, the metric that moved most", to_string(*s.judged_on))
                  : std::string());
}
std::string step_text(const NoTierStep& s) {
  if (s.model_error) {
    return fmt::format(
        "best gain {} ({}), less its spread over the draws, is within the simulation's stated {:.1f}% error "
        "for this class of server: recommend no CPU tier",
        describe_gain(s.best_gain, s.metric), to_string(s.objective), *s.model_error * 100);
  }
  if (s.without_cpu_hits) {
    return fmt::format(
        "best gain {} ({}) comes with no CPU-tier hits, so it is not the tier's doing: recommend no CPU tier",
        describe_gain(s.best_gain, s.metric), to_string(s.objective));
  }
  return fmt::format("best gain {} ({}): {}: recommend no CPU tier", describe_gain(s.best_gain, s.metric),
                     to_string(s.objective), pays_rule(s.objective));
}
std::string step_text(const OtherObjectiveStep& s) {
  return fmt::format(
      "--objective {} pays: {:g} GiB on this grid reaches its knee ({}); run it for its own "
      "refined knee",
      to_string(s.objective), s.gib, describe_gain(s.gain, s.metric));
}
std::string step_text(const WorsePointStep& s) {
  return fmt::format(
      "at {:g} GiB offloading makes it worse: {} vs no tier (host link busy {} h2d, {} d2h: store traffic "
      "and reload convoys)",
      s.gib, describe_gain(s.gain, s.metric), percent(s.h2d_utilization), percent(s.d2h_utilization));
}
std::string step_text(const RaisedToFloorStep& s) {
  return fmt::format(
      "the knee ({:g} GiB) is at or below vLLM's floor, the {:.1f} GiB GPU KV pool (all ranks) a "
      "write-through tier only mirrors: raised to {:g} GiB",
      s.knee_gib, s.floor_gib, s.raised_gib);
}
std::string step_text(const StillRisingStep& s) {
  return fmt::format(
      "the gain is still rising at the {:.0f} GiB host-DRAM cap: more host memory would pay (--host-memory)",
      s.cap_gib);
}
std::string step_text(const RecommendStep& s) {
  const auto spread = s.gain_spread > 0
                          ? fmt::format(" +/- {:.1f}% over {} draws", s.gain_spread * 100, s.seeds)
                          : std::string();
  const auto goodput = s.goodput_rps ? fmt::format(", goodput {:.3g} -> {:.3g} requests/s within the SLO",
                                                   s.goodput_none_rps.value_or(0), *s.goodput_rps)
                                     : std::string();
  const auto unscored = s.unscored ? std::string(
                                         "; kvbench is not scored for this class of server, so this gain "
                                         "cannot be told from the model's error")
                                   : std::string();
  return fmt::format(
      "recommend {:g} GiB ({}{}; bound: {}): TTFT p99 {} -> {}, output {:.0f} -> {:.0f} tok/s, CPU-tier hits "
      "{} "
      "of prompt tokens{}{}",
      s.gib, describe_gain(s.gain, s.metric), spread, to_string(s.bound), format_seconds(s.ttft_p99_none_s),
      format_seconds(s.ttft_p99_s), s.output_tokens_per_s_none, s.output_tokens_per_s,
      percent(s.cpu_hit_rate), goodput, unscored);
}
std::string step_text(const WordedStep& s) { return s.text; }

}  // namespace

std::string describe_gain(double gain, TierObjective o) {
  switch (o) {
    case TierObjective::kBalanced:
    case TierObjective::kThroughput:
      return fmt::format("{:+.1f}% output tok/s", gain * 100);
    case TierObjective::kTtftP99:
      return fmt::format("{:+.1f}% TTFT p99", -gain * 100);
    case TierObjective::kGoodput:
      return fmt::format("{:+.1f}% goodput", gain * 100);
  }
  return {};
}

std::string not_simulated_text(const NotSimulatedWorkload& w) {
  return fmt::format("workload {} not simulated: {}", w.workload,
                     w.weights_fit ? "one request of max-model-len does not fit the GPU KV cache"
                                   : "the weights do not fit");
}

std::string sessions_reason_text(int sessions, const SessionsSource& source) {
  if (source.given) return fmt::format("--concurrency {}", sessions);
  return fmt::format(
      "default: 2 x the {:.2f} full-length sessions the GPU pool holds (the tier is write-through, so it "
      "must "
      "exceed the GPU pool to add anything)",
      source.gpu_sessions);
}

std::string pinning_source_text(const PinningCost& c) {
  std::string where;
  if (c.source.empty()) {
    where = fmt::format("not measured on {} nor on any catalog GPU", c.hardware);
  } else if (!c.stood_in.empty()) {
    auto gpu = c.stood_in;  // catalog names are lower case; GPUs are named upper case
    std::transform(gpu.begin(), gpu.end(), gpu.begin(), [](unsigned char ch) { return std::toupper(ch); });
    where = fmt::format("{}; not measured on {}: pinning is host work, so the {} node's figure stands in",
                        c.source, c.hardware, gpu);
  } else {
    where = c.source;
  }
  return fmt::format(
      "{:.2f} s/GiB mmap + first touch + cudaHostRegister (vLLM's way), {:.2f} s/GiB cudaHostAlloc; {}",
      c.register_s_per_gib, c.host_alloc_s_per_gib, where);
}

std::string recommendation_pin_source(const TierRecommendation& r) {
  return r.pinning ? pinning_source_text(*r.pinning) : std::string();
}

std::string tier_verdict_text(const TierVerdict& v) {
  return std::visit([](const auto& fact) { return verdict_text(fact); }, v);
}

std::string advice_step_text(const AdviceStep& s) {
  return std::visit([](const auto& fact) { return step_text(fact); }, s);
}

std::string recommendation_why(const TierRecommendation& r) {
  return r.verdict ? tier_verdict_text(*r.verdict) : std::string();
}

std::vector<std::string> recommendation_reasoning(const TierRecommendation& r) {
  std::vector<std::string> lines;
  for (const auto& s : r.steps) lines.push_back(advice_step_text(s));
  return lines;
}

}  // namespace kvb

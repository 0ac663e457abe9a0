// The recommendation's verdict as a fact in size's JSON (size/tier_advice_json.hpp).
#include <utility>

#include "core/json_facts.hpp"
#include "core/units.hpp"
#include "size/tier_advice_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a recommendation can write: a gain (a fraction, either sign), a model error.
constexpr double kMaxGain = 1e6;
constexpr double kMaxModelError = 1e3;
constexpr std::int64_t kMaxSizes = 1 << 20;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const RuleVerdict&) { return "rule"; }
const char* kind_of(const KneeVerdict&) { return "knee"; }
const char* kind_of(const NoRoomVerdict&) { return "no-room"; }
const char* kind_of(const TierCostsVerdict&) { return "tier-costs"; }
const char* kind_of(const NoReuseVerdict&) { return "no-reuse"; }
const char* kind_of(const ReuseFitsGpuVerdict&) { return "reuse-fits-gpu"; }
const char* kind_of(const TradedOffVerdict&) { return "traded-off"; }
const char* kind_of(const ArrivalBoundVerdict&) { return "arrival-bound"; }
const char* kind_of(const LinkBoundVerdict&) { return "link-bound"; }
const char* kind_of(const ComputeBoundVerdict&) { return "compute-bound"; }
const char* kind_of(const WithinModelErrorVerdict&) { return "within-model-error"; }
const char* kind_of(const InterruptedVerdict&) { return "interrupted"; }
const char* kind_of(const WordedVerdict&) { return "worded"; }

// Each fact's fields, named as its struct's.
void put(const RuleVerdict& v, json& j) {
  j["sessions"] = v.sessions;
  j["source"] = {{"given", v.source.given}, {"gpu_sessions", v.source.gpu_sessions}};
  j["not_simulated"] = v.not_simulated ? json{{"workload", v.not_simulated->workload},
                                              {"weights_fit", v.not_simulated->weights_fit}}
                                       : json(nullptr);
}
void put(const KneeVerdict& v, json& j) {
  j["gib"] = v.gib;
  j["share_of_best"] = v.share_of_best;
  j["best_gain"] = v.best_gain;
  j["best_gib"] = v.best_gib;
  j["cpu_hit_rate"] = v.cpu_hit_rate;
  j["metric"] = to_string(v.metric);
}
void put(const NoRoomVerdict& v, json& j) { j["cap_gib"] = v.cap_gib; }
void put(const TierCostsVerdict& v, json& j) {
  j["gib"] = v.gib;
  j["loss"] = v.loss;
  j["mechanism_share"] = v.mechanism_share;
  j["mechanism"] = v.mechanism;
}
// The two that share their fields: what the GPU and the tier hit at `gib`.
template <typename HitVerdict>
void put_hits(const HitVerdict& v, json& j) {
  j["gpu_hit_rate"] = v.gpu_hit_rate;
  j["cpu_hit_rate"] = v.cpu_hit_rate;
  j["gib"] = v.gib;
}
void put(const NoReuseVerdict& v, json& j) { put_hits(v, j); }
void put(const ReuseFitsGpuVerdict& v, json& j) { put_hits(v, j); }
void put(const TradedOffVerdict& v, json& j) {
  j["gib"] = v.gib;
  j["ttft_gain"] = v.ttft_gain;
  j["throughput_gain"] = v.throughput_gain;
}
void put(const ArrivalBoundVerdict& v, json& j) {
  j["engine_busy_share"] = v.engine_busy_share;
  j["cpu_hit_rate"] = v.cpu_hit_rate;
  j["gib"] = v.gib;
}
void put(const LinkBoundVerdict& v, json& j) {
  j["cpu_hit_rate"] = v.cpu_hit_rate;
  j["h2d_utilization"] = v.h2d_utilization;
  j["gib"] = v.gib;
}
void put(const ComputeBoundVerdict& v, json& j) {
  j["cpu_hit_rate"] = v.cpu_hit_rate;
  j["gib"] = v.gib;
}
void put(const WithinModelErrorVerdict& v, json& j) {
  j["gib"] = v.gib;
  j["gain"] = v.gain;
  j["spread"] = v.spread;
  j["model_error"] = v.model_error;
  j["cpu_hit_rate"] = v.cpu_hit_rate;
  j["metric"] = to_string(v.metric);
}
void put(const InterruptedVerdict& v, json& j) {
  j["signal"] = v.signal;
  j["gib"] = v.gib;
  j["sizes"] = v.sizes;
}
void put(const WordedVerdict& v, json& j) { j["text"] = v.text; }

double gib(const JsonFields& r, const json& j, const char* key = "gib") {
  return r.required(j, key, kMaxTierGib);
}
double gain(const JsonFields& r, const json& j, const char* key) { return r.in(j, key, -kMaxGain, kMaxGain); }
double share(const JsonFields& r, const json& j, const char* key) { return r.required(j, key, 1); }

void get(const JsonFields& r, const json& j, RuleVerdict& v) {
  v.sessions = static_cast<int>(r.integer(j, "sessions", 0, 1 << 30));
  const auto& source = r.object(j, "source");
  v.source = {.given = r.flag(source, "given"), .gpu_sessions = r.required(source, "gpu_sessions", 1e12)};
  if (const auto it = j.find("not_simulated"); it != j.end() && !it->is_null()) {
    const auto& n = r.object(j, "not_simulated");
    v.not_simulated =
        NotSimulatedWorkload{.workload = r.text(n, "workload"), .weights_fit = r.flag(n, "weights_fit")};
  }
}
void get(const JsonFields& r, const json& j, KneeVerdict& v) {
  v.gib = gib(r, j);
  v.share_of_best = gain(r, j, "share_of_best");
  v.best_gain = gain(r, j, "best_gain");
  v.best_gib = gib(r, j, "best_gib");
  v.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  v.metric = objective_field(r, j, "metric");
}
void get(const JsonFields& r, const json& j, NoRoomVerdict& v) { v.cap_gib = gib(r, j, "cap_gib"); }
void get(const JsonFields& r, const json& j, TierCostsVerdict& v) {
  v.gib = gib(r, j);
  v.loss = gain(r, j, "loss");
  v.mechanism_share = share(r, j, "mechanism_share");
  v.mechanism = r.text(j, "mechanism");
}
template <typename HitVerdict>
void get_hits(const JsonFields& r, const json& j, HitVerdict& v) {
  v.gpu_hit_rate = share(r, j, "gpu_hit_rate");
  v.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  v.gib = gib(r, j);
}
void get(const JsonFields& r, const json& j, NoReuseVerdict& v) { get_hits(r, j, v); }
void get(const JsonFields& r, const json& j, ReuseFitsGpuVerdict& v) { get_hits(r, j, v); }
void get(const JsonFields& r, const json& j, TradedOffVerdict& v) {
  v.gib = gib(r, j);
  v.ttft_gain = gain(r, j, "ttft_gain");
  v.throughput_gain = gain(r, j, "throughput_gain");
}
void get(const JsonFields& r, const json& j, ArrivalBoundVerdict& v) {
  v.engine_busy_share = share(r, j, "engine_busy_share");
  v.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  v.gib = gib(r, j);
}
void get(const JsonFields& r, const json& j, LinkBoundVerdict& v) {
  v.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  v.h2d_utilization = share(r, j, "h2d_utilization");
  v.gib = gib(r, j);
}
void get(const JsonFields& r, const json& j, ComputeBoundVerdict& v) {
  v.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  v.gib = gib(r, j);
}
void get(const JsonFields& r, const json& j, WithinModelErrorVerdict& v) {
  v.gib = gib(r, j);
  v.gain = gain(r, j, "gain");
  v.spread = r.required(j, "spread", kMaxGain);
  v.model_error = r.required(j, "model_error", kMaxModelError);
  v.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  v.metric = objective_field(r, j, "metric");
}
void get(const JsonFields& r, const json& j, InterruptedVerdict& v) {
  v.signal = r.text(j, "signal");
  v.gib = static_cast<int>(r.integer(j, "gib", 0, static_cast<std::int64_t>(kMaxTierGib)));
  v.sizes = static_cast<std::size_t>(r.integer(j, "sizes", 0, kMaxSizes));
}
void get(const JsonFields& r, const json& j, WordedVerdict& v) { v.text = r.text(j, "text"); }

const auto kKindOf = [](const auto& fact) { return kind_of(fact); };

}  // namespace

TierObjective objective_field(const JsonFields& r, const json& j, const char* key) {
  return parse_tier_objective(r.text(j, key), r.where() + ": " + key);
}

json pinning_cost_to_json(const PinningCost& c) {
  return {{"register_s_per_gib", c.register_s_per_gib},
          {"host_alloc_s_per_gib", c.host_alloc_s_per_gib},
          {"source", c.source},
          {"hardware", c.hardware},
          {"stood_in", c.stood_in}};
}

PinningCost pinning_cost_from_json(const json& j, const std::string& origin) {
  const JsonFields r(origin + ": cost");
  if (!j.is_object()) throw UsageError(fmt::format("{} must be an object", r.where()));
  constexpr double kMaxSecondsPerGib = 1e3;
  return {.register_s_per_gib = r.required(j, "register_s_per_gib", kMaxSecondsPerGib),
          .host_alloc_s_per_gib = r.required(j, "host_alloc_s_per_gib", kMaxSecondsPerGib),
          .source = r.text(j, "source"),
          .hardware = r.text(j, "hardware"),
          .stood_in = r.text(j, "stood_in")};
}

std::vector<std::string> tier_verdict_kinds() { return fact_kinds<TierVerdict>(kKindOf); }

json tier_verdict_to_json(const TierVerdict& v) {
  return fact_to_json(v, kKindOf, [](const auto& f, json& j) { put(f, j); });
}

TierVerdict tier_verdict_from_json(const json& j, const std::string& origin) {
  return fact_from_json<TierVerdict>(j, JsonFields(origin + ": verdict"), "a verdict", kKindOf,
                                     [](const JsonFields& r, const json& f, auto& fact) { get(r, f, fact); });
}

void write_tier_advice(const std::optional<TierVerdict>& verdict, const std::vector<AdviceStep>& steps,
                       json& recommendation) {
  recommendation["verdict"] = verdict ? tier_verdict_to_json(*verdict) : json(nullptr);
  recommendation["steps"] = fact_list_json(steps, advice_step_to_json);
}

std::optional<TierVerdict> read_tier_verdict(const json& recommendation, const std::string& origin) {
  if (const auto it = recommendation.find("verdict"); it != recommendation.end()) {
    if (it->is_null()) return std::nullopt;
    return tier_verdict_from_json(*it, origin);
  }
  // Written before verdicts were facts: the words, as written.
  if (const auto it = recommendation.find("why"); it != recommendation.end() && it->is_string()) {
    return WordedVerdict{it->get<std::string>()};
  }
  return std::nullopt;
}

}  // namespace kvb

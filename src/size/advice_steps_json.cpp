// The recommendation's steps as facts in size's JSON (size/tier_advice_json.hpp).
#include <fmt/format.h>

#include <utility>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/units.hpp"
#include "size/tier_advice_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a step can write: a gain (a fraction, either sign), seconds, tokens/s, draws.
constexpr double kMaxGain = 1e6;
constexpr double kMaxModelError = 1e3;
constexpr double kMaxSeconds = 1e9;
constexpr double kMaxRate = 1e12;
constexpr std::int64_t kMaxCount = 1 << 20;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const FleetCandidatesStep&) { return "fleet-candidates"; }
const char* kind_of(const TraceCurveStep&) { return "trace-curve"; }
const char* kind_of(const TraceCandidatesStep&) { return "trace-candidates"; }
const char* kind_of(const OverloadedStep&) { return "overloaded"; }
const char* kind_of(const SimulatedStep&) { return "simulated"; }
const char* kind_of(const NoTierStep&) { return "no-tier"; }
const char* kind_of(const OtherObjectiveStep&) { return "other-objective"; }
const char* kind_of(const WorsePointStep&) { return "worse-point"; }
const char* kind_of(const RaisedToFloorStep&) { return "raised-to-floor"; }
const char* kind_of(const StillRisingStep&) { return "still-rising"; }
const char* kind_of(const RecommendStep&) { return "recommend"; }
const char* kind_of(const PoolKneeStep&) { return "pool-knee"; }
const char* kind_of(const WordedStep&) { return "worded"; }

constexpr TagTable<CandidateKind, 3> kCandidates{{{CandidateKind::kAboveFloor, "above-floor"},
                                                  {CandidateKind::kShareOfCap, "share-of-cap"},
                                                  {CandidateKind::kCapStillRising, "cap-still-rising"}}};

json maybe(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }

// Each fact's fields, named as its struct's.
void put(const FleetCandidatesStep& s, json& j) {
  j["replicas"] = s.replicas;
  j["router"] = to_string(s.router);
  j["least_loaded_stand_in"] = s.least_loaded_stand_in;
}
void put(const TraceCurveStep& s, json& j) {
  j["requests"] = s.requests;
  j["unbounded_hit_rate"] = s.unbounded_hit_rate;
  j["cap_gib"] = s.cap_gib;
  j["hit_rate_at_cap"] = s.hit_rate_at_cap;
  j["floor_gib"] = s.floor_gib;
  j["hit_rate_at_floor"] = s.hit_rate_at_floor;
}
void put(const TraceCandidatesStep& s, json& j) {
  j["picked"] = json::array();
  for (const auto& c : s.picked) {
    j["picked"].push_back({{"gib", c.gib},
                           {"kind", tag_of(kCandidates, c.kind)},
                           {"share", c.share},
                           {"hit_rate", c.hit_rate}});
  }
}
void put(const OverloadedStep& s, json& j) {
  j["ttft_p50_s"] = s.ttft_p50_s;
  j["trace"] = s.trace;
}
void put(const SimulatedStep& s, json& j) {
  j["sizes"] = s.sizes;
  j["workload"] = s.workload;
  j["requests"] = s.requests;
  j["draws"] = s.draws;
  j["cap_gib"] = s.cap_gib;
  j["judged_on"] = s.judged_on ? json(to_string(*s.judged_on)) : json(nullptr);
}
void put(const NoTierStep& s, json& j) {
  j["best_gain"] = s.best_gain;
  j["metric"] = to_string(s.metric);
  j["objective"] = to_string(s.objective);
  j["without_cpu_hits"] = s.without_cpu_hits;
  j["model_error"] = maybe(s.model_error);
}
void put(const OtherObjectiveStep& s, json& j) {
  j["objective"] = to_string(s.objective);
  j["metric"] = to_string(s.metric);
  j["gib"] = s.gib;
  j["gain"] = s.gain;
}
void put(const WorsePointStep& s, json& j) {
  j["gib"] = s.gib;
  j["gain"] = s.gain;
  j["h2d_utilization"] = s.h2d_utilization;
  j["d2h_utilization"] = s.d2h_utilization;
  j["metric"] = to_string(s.metric);
}
void put(const RaisedToFloorStep& s, json& j) {
  j["knee_gib"] = s.knee_gib;
  j["floor_gib"] = s.floor_gib;
  j["raised_gib"] = s.raised_gib;
}
void put(const StillRisingStep& s, json& j) { j["cap_gib"] = s.cap_gib; }
void put(const RecommendStep& s, json& j) {
  j.update({{"gib", s.gib},
            {"gain", s.gain},
            {"gain_spread", s.gain_spread},
            {"metric", to_string(s.metric)},
            {"seeds", s.seeds},
            {"bound", to_string(s.bound)},
            {"ttft_p99_none_s", s.ttft_p99_none_s},
            {"ttft_p99_s", s.ttft_p99_s},
            {"output_tokens_per_s_none", s.output_tokens_per_s_none},
            {"output_tokens_per_s", s.output_tokens_per_s},
            {"cpu_hit_rate", s.cpu_hit_rate},
            {"goodput_none_rps", maybe(s.goodput_none_rps)},
            {"goodput_rps", maybe(s.goodput_rps)},
            {"unscored", s.unscored}});
}
void put(const PoolKneeStep& s, json& j) {
  j["pool_step"] = s.pool_step;
  j["gpu_blocks"] = s.gpu_blocks;
  j["smaller"] = maybe(s.smaller);
  j["larger"] = s.larger;
}
void put(const WordedStep& s, json& j) { j["text"] = s.text; }

double gib(const JsonFields& r, const json& j, const char* key = "gib") {
  return r.required(j, key, kMaxTierGib);
}
double gain(const JsonFields& r, const json& j, const char* key = "gain") {
  return r.in(j, key, -kMaxGain, kMaxGain);
}
double share(const JsonFields& r, const json& j, const char* key) { return r.required(j, key, 1); }
std::int64_t count(const JsonFields& r, const json& j, const char* key, std::int64_t lo = 0) {
  return r.integer(j, key, lo, kMaxTokens);
}

void get(const JsonFields& r, const json& j, FleetCandidatesStep& s) {
  s.replicas = static_cast<int>(r.integer(j, "replicas", 1, kMaxReplicas));
  s.router = parse_router(r.text(j, "router"), r.where() + ": router");
  s.least_loaded_stand_in = r.flag(j, "least_loaded_stand_in");
}
void get(const JsonFields& r, const json& j, TraceCurveStep& s) {
  s.requests = count(r, j, "requests");
  s.unbounded_hit_rate = share(r, j, "unbounded_hit_rate");
  s.cap_gib = gib(r, j, "cap_gib");
  s.hit_rate_at_cap = share(r, j, "hit_rate_at_cap");
  s.floor_gib = gib(r, j, "floor_gib");
  s.hit_rate_at_floor = share(r, j, "hit_rate_at_floor");
}
void get(const JsonFields& r, const json& j, TraceCandidatesStep& s) {
  const auto it = j.find("picked");
  if (it == j.end() || !it->is_array()) {
    throw UsageError(fmt::format("{}: field 'picked' must be a list of candidate sizes", r.where()));
  }
  for (const auto& c : *it) {
    if (!c.is_object()) throw UsageError(fmt::format("{}: a candidate size must be an object", r.where()));
    s.picked.push_back(
        {.gib = static_cast<int>(r.integer(c, "gib", 0, static_cast<std::int64_t>(kMaxTierGib))),
         .kind = tag_field(r, c, "kind", kCandidates),
         .share = share(r, c, "share"),
         .hit_rate = share(r, c, "hit_rate")});
  }
}
void get(const JsonFields& r, const json& j, OverloadedStep& s) {
  s.ttft_p50_s = r.required(j, "ttft_p50_s", kMaxSeconds);
  s.trace = r.flag(j, "trace");
}
void get(const JsonFields& r, const json& j, SimulatedStep& s) {
  s.sizes = static_cast<std::size_t>(r.integer(j, "sizes", 0, kMaxCount));
  s.workload = r.text(j, "workload");
  s.requests = count(r, j, "requests");
  s.draws = static_cast<int>(r.integer(j, "draws", 1, kMaxCount));
  s.cap_gib = gib(r, j, "cap_gib");
  if (!r.text(j, "judged_on").empty()) s.judged_on = objective_field(r, j, "judged_on");
}
void get(const JsonFields& r, const json& j, NoTierStep& s) {
  s.best_gain = gain(r, j, "best_gain");
  s.metric = objective_field(r, j, "metric");
  s.objective = objective_field(r, j, "objective");
  s.without_cpu_hits = r.flag(j, "without_cpu_hits");
  s.model_error = r.maybe(j, "model_error", 0, kMaxModelError);
}
void get(const JsonFields& r, const json& j, OtherObjectiveStep& s) {
  s.objective = objective_field(r, j, "objective");
  s.metric = objective_field(r, j, "metric");
  s.gib = gib(r, j);
  s.gain = gain(r, j);
}
void get(const JsonFields& r, const json& j, WorsePointStep& s) {
  s.gib = gib(r, j);
  s.gain = gain(r, j);
  s.h2d_utilization = share(r, j, "h2d_utilization");
  s.d2h_utilization = share(r, j, "d2h_utilization");
  s.metric = objective_field(r, j, "metric");
}
void get(const JsonFields& r, const json& j, RaisedToFloorStep& s) {
  s.knee_gib = gib(r, j, "knee_gib");
  s.floor_gib = gib(r, j, "floor_gib");
  s.raised_gib = gib(r, j, "raised_gib");
}
void get(const JsonFields& r, const json& j, StillRisingStep& s) { s.cap_gib = gib(r, j, "cap_gib"); }
void get(const JsonFields& r, const json& j, RecommendStep& s) {
  s.gib = gib(r, j);
  s.gain = gain(r, j);
  s.gain_spread = r.required(j, "gain_spread", kMaxGain);
  s.metric = objective_field(r, j, "metric");
  s.seeds = static_cast<int>(r.integer(j, "seeds", 1, kMaxCount));
  s.bound = parse_tier_bound(r.text(j, "bound"), r.where() + ": bound");
  s.ttft_p99_none_s = r.required(j, "ttft_p99_none_s", kMaxSeconds);
  s.ttft_p99_s = r.required(j, "ttft_p99_s", kMaxSeconds);
  s.output_tokens_per_s_none = r.required(j, "output_tokens_per_s_none", kMaxRate);
  s.output_tokens_per_s = r.required(j, "output_tokens_per_s", kMaxRate);
  s.cpu_hit_rate = share(r, j, "cpu_hit_rate");
  s.goodput_none_rps = r.maybe(j, "goodput_none_rps", 0, kMaxRate);
  s.goodput_rps = r.maybe(j, "goodput_rps", 0, kMaxRate);
  s.unscored = r.flag(j, "unscored");
}
void get(const JsonFields& r, const json& j, PoolKneeStep& s) {
  s.pool_step = share(r, j, "pool_step");
  s.gpu_blocks = count(r, j, "gpu_blocks");
  s.smaller = r.maybe(j, "smaller", -kMaxGain, kMaxGain);
  s.larger = gain(r, j, "larger");
}
void get(const JsonFields& r, const json& j, WordedStep& s) { s.text = r.text(j, "text"); }

const auto kKindOf = [](const auto& fact) { return kind_of(fact); };

}  // namespace

std::vector<std::string> advice_step_kinds() { return fact_kinds<AdviceStep>(kKindOf); }

json advice_step_to_json(const AdviceStep& s) {
  return fact_to_json(s, kKindOf, [](const auto& f, json& j) { put(f, j); });
}

AdviceStep advice_step_from_json(const json& j, const std::string& origin) {
  if (j.is_string()) return WordedStep{j.get<std::string>()};  // a line of an older "reasoning"
  return fact_from_json<AdviceStep>(j, JsonFields(origin + ": steps"), "a step", kKindOf,
                                    [](const JsonFields& r, const json& f, auto& fact) { get(r, f, fact); });
}

std::vector<AdviceStep> read_advice_steps(const json& recommendation, const std::string& origin) {
  const auto one = [&](const json& s) { return advice_step_from_json(s, origin); };
  if (recommendation.contains("steps"))
    return read_fact_list<AdviceStep>(recommendation, "steps", origin, one);
  // Written before steps were facts: its reasoning's lines, as written.
  return read_fact_list<AdviceStep>(recommendation, "reasoning", origin, one);
}

}  // namespace kvb

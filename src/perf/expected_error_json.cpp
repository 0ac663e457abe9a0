#include "perf/expected_error_json.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a scoring can write: ranks of one server, scored runs, and errors as fractions
// (a model 1000x off is no model; a TPOT can be at most 100% fast, (0 - measured) / measured).
constexpr std::int64_t kMaxRanks = 1 << 20;
constexpr std::int64_t kMaxRuns = std::int64_t{1} << 40;
constexpr double kMaxError = 1e3;
constexpr double kMinSignedError = -1;

// The class part every scored class shares (ServerClass): one writer and one reader for both kinds.
void put_server_class(const ServerClass& c, json& j) {
  j["moe"] = c.moe;
  j["weights"] = c.weights;
  j["ranks"] = c.ranks;
  j["runs"] = c.runs;
  j["runs_described"] = c.runs_described;
}
void get_server_class(const JsonFields& r, const json& j, ServerClass& c) {
  c.moe = r.flag(j, "moe");
  c.weights = r.text(j, "weights");
  c.ranks = static_cast<int>(r.integer(j, "ranks", 1, kMaxRanks));
  c.runs = r.integer(j, "runs", 0, kMaxRuns);
  c.runs_described = r.text(j, "runs_described");
}

json scored_to_json(const ScoredClass& c) {
  json j = json::object();
  put_server_class(c, j);
  j["ttft_mean"] = c.ttft_mean;
  j["e2e_mean"] = c.e2e_mean;
  j["ttft_worst"] = c.ttft_worst;
  j["e2e_worst"] = c.e2e_worst;
  return j;
}
ScoredClass scored_from_json(const JsonFields& r, const json& j) {
  if (!j.is_object()) {
    throw UsageError(fmt::format("{}: a scored class is a {}; expected an object", r.where(), j.type_name()));
  }
  ScoredClass c;
  get_server_class(r, j, c);
  c.ttft_mean = r.required(j, "ttft_mean", kMaxError);
  c.e2e_mean = r.required(j, "e2e_mean", kMaxError);
  c.ttft_worst = r.required(j, "ttft_worst", kMaxError);
  c.e2e_worst = r.required(j, "e2e_worst", kMaxError);
  return c;
}

json one_in_flight_to_json(const OneInFlightClass& c) {
  json j = json::object();
  put_server_class(c, j);
  j["tpot_error_min"] = c.tpot_error_min;
  j["tpot_error_max"] = c.tpot_error_max;
  return j;
}
OneInFlightClass one_in_flight_from_json(const JsonFields& r, const json& j) {
  if (!j.is_object()) {
    throw UsageError(fmt::format("{}: a class at one request in flight is a {}; expected an object",
                                 r.where(), j.type_name()));
  }
  OneInFlightClass c;
  get_server_class(r, j, c);
  c.tpot_error_min = r.in(j, "tpot_error_min", kMinSignedError, kMaxError);
  c.tpot_error_max = r.in(j, "tpot_error_max", kMinSignedError, kMaxError);
  return c;
}

}  // namespace

json expected_error_to_json(const ExpectedError& e) {
  if (!e.recorded.empty()) return e.recorded;  // an older document's words, written back as they were
  return {{"moe", e.moe},
          {"weights", e.weights},
          {"ranks", e.ranks},
          {"hardware", e.hardware},
          {"scored", fact_list_json(e.scored, scored_to_json)},
          {"fleet", e.fleet},
          {"one_in_flight", e.one_in_flight},
          {"at_one", fact_list_json(e.at_one, one_in_flight_to_json)},
          {"at_one_anywhere", one_in_flight_to_json(e.at_one_anywhere)}};
}

ExpectedError expected_error_from_json(const json& j, const std::string& where) {
  if (j.is_string()) {  // a document written before the error was facts: its words, kept as written
    ExpectedError e;
    e.recorded = j.get<std::string>();
    return e;
  }
  const JsonFields r(where + ": expected_error");
  if (!j.is_object()) {
    throw UsageError(fmt::format("{} is a {}; expected an object or a string", r.where(), j.type_name()));
  }
  ExpectedError e;
  e.moe = r.flag(j, "moe");
  e.weights = r.text(j, "weights");
  e.ranks = static_cast<int>(r.integer(j, "ranks", 1, kMaxRanks));
  e.hardware = r.text(j, "hardware");
  e.scored = read_fact_list<ScoredClass>(j, "scored", r.where(),
                                         [&](const json& c) { return scored_from_json(r, c); });
  e.fleet = r.flag(j, "fleet");
  e.one_in_flight = r.flag(j, "one_in_flight");
  e.at_one = read_fact_list<OneInFlightClass>(j, "at_one", r.where(),
                                              [&](const json& c) { return one_in_flight_from_json(r, c); });
  e.at_one_anywhere = one_in_flight_from_json(r, r.object(j, "at_one_anywhere"));
  return e;
}

}  // namespace kvb

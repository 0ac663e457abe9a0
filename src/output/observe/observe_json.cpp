#include "output/observe/observe_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "observe/observe_verdict.hpp"
#include "output/observe/observe_words.hpp"

namespace kvb {
namespace {

nlohmann::json readings_json(const ObserveResult& r) {
  auto readings = nlohmann::json::array();
  for (const auto& reading : r.readings) {
    const auto& w = figure_words(reading.figure);
    nlohmann::json j = {{"figure", w.key},
                        {"metric", reading.metric},
                        {"kind", reading.counter ? "counter" : "gauge"},
                        {"before", reading.before},
                        {"after", reading.after},
                        {"source_file", w.source},
                        {"meaning", w.meaning}};
    if (reading.counter) {
      j["delta"] = reading.delta;
      j["per_second"] = reading.per_second;
    }
    readings.push_back(std::move(j));
  }
  return readings;
}

nlohmann::json evidence_json(const TierEvidence& e) {
  nlohmann::json evidence = {{"unit", e.bytes ? "bytes" : "tokens"},
                             {"queried_tokens", e.queried},
                             {"hit_tokens", e.hits},
                             {"refusals", e.refusals},
                             {"loads_per_store_floor", kLoadsPerStoreFloor}};
  evidence["stored"] = e.stored ? nlohmann::json(*e.stored) : nlohmann::json(nullptr);
  evidence["loaded"] = e.loaded ? nlohmann::json(*e.loaded) : nlohmann::json(nullptr);
  evidence["host_occupancy"] = e.occupancy ? nlohmann::json(*e.occupancy) : nlohmann::json(nullptr);
  return evidence;
}

}  // namespace

nlohmann::json observe_json(const ObserveResult& r, const ObserveSources& s) {
  return {
      {"schema", kObserveSchema},
      {"engine", engine_key(r.engine)},
      {"lmcache", r.lmcache},
      {"seconds", r.seconds},
      {"interrupted", s.interrupted},
      {"sources",
       {{"before", s.before}, {"after", s.after}, {"scrapes", s.scrapes}, {"seconds_from", s.seconds_from}}},
      {"tier_metric_names", naming_key(r.naming)},
      {"readings", readings_json(r)},
      {"verdict",
       {{"kind", verdict_key(r.verdict)},
        {"text", verdict_text(r)},
        {"evidence", evidence_json(r.evidence)}}}};
}

namespace {

// Each enum read by the key the writer spells it with: the key functions are the one table.
template <class Enum>
Enum from_key(const nlohmann::json& j, const char* field, Enum last, const char* (*key)(Enum),
              const std::string& origin) {
  const auto text = j.at(field).get<std::string>();
  for (int i = 0; i <= static_cast<int>(last); ++i) {
    if (text == key(static_cast<Enum>(i))) return static_cast<Enum>(i);
  }
  throw UsageError(fmt::format("{}: {} '{}' is not one kvbench observe writes", origin, field, text));
}

// A figure by its key and the engine file that defines it: vLLM and SGLang both have a
// "prompt_tokens".
Figure figure_from(const nlohmann::json& j, const std::string& origin) {
  const auto key = j.at("figure").get<std::string>();
  const auto source = j.at("source_file").get<std::string>();
  for (int i = 0; i <= static_cast<int>(Figure::LmLocalCacheBytes); ++i) {
    const auto& w = figure_words(static_cast<Figure>(i));
    if (key == w.key && source == w.source) return static_cast<Figure>(i);
  }
  throw UsageError(
      fmt::format("{}: figure '{}' from {} is not one kvbench observe writes", origin, key, source));
}

// A count or byte total the words print as a whole number (a 64-bit integer): 10^18 is an exabyte.
constexpr double kMaxFigure = 1e18;

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }
bool near(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || near(*a, *b));
}

Reading reading_from(const nlohmann::json& j, const std::string& origin) {
  Reading r;
  r.figure = figure_from(j, origin);
  r.metric = j.at("metric").get<std::string>();
  r.counter = j.at("kind").get<std::string>() == "counter";
  r.before = json_number_in(j, "before", 0, kMaxFigure, origin);
  r.after = json_number_in(j, "after", 0, kMaxFigure, origin);
  if (r.counter) {
    r.delta = json_number_in(j, "delta", 0, kMaxFigure, origin);
    r.per_second = json_number_in(j, "per_second", 0, kMaxFigure, origin);
  }
  return r;
}

// A counter's delta and rate follow from its readings and the window, as observe derived them.
void check_counter(const Reading& r, double seconds, const std::string& origin) {
  if (!r.counter || (near(r.delta, r.after - r.before) && near(r.per_second, r.delta / seconds))) return;
  throw UsageError(fmt::format(
      "{}: {} reads {} then {} but states delta {} and {} per second over {} s; expected delta = after - "
      "before and per_second = delta / seconds, as kvbench observe writes them",
      origin, r.metric, r.before, r.after, r.delta, r.per_second, seconds));
}

// The verdict and its evidence must be the ones the readings give: the report words them as measured.
void check_verdict(const ObserveResult& r, const std::string& origin) {
  ObserveResult judged = r;
  judge_tier(judged);
  if (judged.verdict != r.verdict)
    throw UsageError(fmt::format(
        "{}: the verdict '{}' does not follow from the readings (they give '{}'); expected the verdict "
        "kvbench observe wrote for them",
        origin, verdict_key(r.verdict), verdict_key(judged.verdict)));
  const auto& a = r.evidence;
  const auto& b = judged.evidence;
  const std::pair<const char*, bool> fields[] = {{"unit", a.bytes == b.bytes},
                                                 {"queried_tokens", near(a.queried, b.queried)},
                                                 {"hit_tokens", near(a.hits, b.hits)},
                                                 {"refusals", near(a.refusals, b.refusals)},
                                                 {"stored", near(a.stored, b.stored)},
                                                 {"loaded", near(a.loaded, b.loaded)},
                                                 {"host_occupancy", near(a.occupancy, b.occupancy)}};
  for (const auto& [field, same] : fields) {
    if (same) continue;
    throw UsageError(fmt::format(
        "{}: the verdict's evidence '{}' does not follow from the readings; expected the evidence "
        "kvbench observe wrote for them",
        origin, field));
  }
}

std::optional<double> optional_figure(const nlohmann::json& j, const char* key, const std::string& origin) {
  if (j.at(key).is_null()) return std::nullopt;
  return json_number_in(j, key, 0, kMaxFigure, origin);
}

TierEvidence evidence_from(const nlohmann::json& j, const std::string& origin) {
  TierEvidence e;
  e.bytes = j.at("unit").get<std::string>() == "bytes";
  e.queried = json_number_in(j, "queried_tokens", 0, kMaxFigure, origin);
  e.hits = json_number_in(j, "hit_tokens", 0, kMaxFigure, origin);
  e.refusals = json_number_in(j, "refusals", 0, kMaxFigure, origin);
  e.stored = optional_figure(j, "stored", origin);
  e.loaded = optional_figure(j, "loaded", origin);
  e.occupancy = optional_figure(j, "host_occupancy", origin);
  return e;
}

}  // namespace

ObserveDocument observe_document_from_json(const nlohmann::json& doc, const std::string& origin) {
  ObserveDocument d;
  auto& r = d.result;
  r.engine = from_key(doc, "engine", ObservedEngine::Lmcache, engine_key, origin);
  r.lmcache = doc.at("lmcache").get<bool>();
  r.seconds = json_number_in(doc, "seconds", 1e-9, 1e12, origin);
  r.naming = from_key(doc, "tier_metric_names", OffloadNaming::FlatNames, naming_key, origin);
  for (const auto& j : doc.at("readings")) r.readings.push_back(reading_from(j, origin));
  const auto& verdict = doc.at("verdict");
  r.verdict = from_key(verdict, "kind", TierVerdictKind::Unknown, verdict_key, origin);
  r.evidence = evidence_from(verdict.at("evidence"), origin);
  const auto& s = doc.at("sources");
  d.sources.before = s.at("before").get<std::string>();
  d.sources.after = s.at("after").get<std::string>();
  d.sources.scrapes = static_cast<int>(json_integer_in(s, "scrapes", 2, 1 << 20, origin));
  d.sources.seconds_from = s.at("seconds_from").get<std::string>();
  d.sources.interrupted = doc.at("interrupted").get<bool>();
  for (const auto& reading : r.readings) check_counter(reading, r.seconds, origin);
  check_readings(r, origin);
  check_verdict(r, origin);
  return d;
}

}  // namespace kvb

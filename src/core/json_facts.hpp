#pragma once
// Facts in a result document (issue 54 §2): each alternative of a std::variant of facts written as
// {"kind": "<tag>", <its fields>} and read back as the same alternative. A document's fact file
// (size/sizing_warnings_json.cpp, sim/sim_notes_json.cpp, ...) gives each alternative its tag
// (kind_of), its writer (put) and its reader (get); these templates walk the variant for all of
// them, so each list of facts is written, read and refused the same way.
#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/errors.hpp"
#include "core/json_file.hpp"

namespace kvb {

// An enum's tags in a document (stable, unlike its printed words).
template <typename E, std::size_t N>
using TagTable = std::array<std::pair<E, const char*>, N>;

// `e`'s tag; the first row's for a value the table lacks.
template <typename E, std::size_t N>
const char* tag_of(const TagTable<E, N>& table, E e) {
  for (const auto& [value, tag] : table) {
    if (value == e) return tag;
  }
  return table.front().second;
}

// The value whose tag `j[key]` holds; UsageError "<where>: field 'key' is 'x'; expected one of ...".
template <typename E, std::size_t N>
E tag_field(const JsonFields& r, const nlohmann::json& j, const char* key, const TagTable<E, N>& table) {
  const auto tag = r.text(j, key);
  std::vector<std::string> accepted;
  for (const auto& [value, name] : table) {
    if (tag == name) return value;
    accepted.emplace_back(name);
  }
  throw UsageError(fmt::format("{}: field '{}' is '{}'; expected one of {}", r.where(), key, tag,
                               fmt::join(accepted, ", ")));
}

// The tags of Variant's alternatives, in its order; `kind_of(fact)` names one.
template <typename Variant, typename KindOf>
std::vector<std::string> fact_kinds(KindOf kind_of) {
  std::vector<std::string> kinds;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (kinds.emplace_back(kind_of(std::variant_alternative_t<I, Variant>{})), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  return kinds;
}

// {"kind": kind_of(fact)} and what `put(fact, j)` adds.
template <typename Variant, typename KindOf, typename Put>
nlohmann::json fact_to_json(const Variant& v, KindOf kind_of, Put put) {
  return std::visit(
      [&](const auto& fact) {
        nlohmann::json j = {{"kind", kind_of(fact)}};
        put(fact, j);
        return j;
      },
      v);
}

// The alternative whose tag `j["kind"]` holds, its fields read by `get(r, j, fact)`. UsageError
// naming `r.where()` where `j` is not an object ("a warning is a number; expected an object with a
// kind") or its kind is not one kvbench writes (the kinds listed). `noun`: "a warning", ...
template <typename Variant, typename Fields, typename KindOf, typename Get>
Variant fact_from_json(const nlohmann::json& j, const Fields& r, const char* noun, KindOf kind_of, Get get) {
  if (!j.is_object()) {
    throw UsageError(
        fmt::format("{}: {} is a {}; expected an object with a kind", r.where(), noun, j.type_name()));
  }
  const auto it = j.find("kind");
  const auto kind = it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  std::optional<Variant> out;
  const auto try_one = [&](auto fact) {
    if (out || kind != kind_of(fact)) return;
    get(r, j, fact);
    out = std::move(fact);
  };
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (try_one(std::variant_alternative_t<I, Variant>{}), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  if (out) return *std::move(out);
  throw UsageError(fmt::format("{}: kind '{}' is not {} kvbench writes; expected one of {}", r.where(), kind,
                               noun, fmt::join(fact_kinds<Variant>(kind_of), ", ")));
}

// The list of facts under `key` of `record`, each read by `one(fact_json)`; absent reads as none.
// UsageError "<origin>: field 'key' is a <type>; expected a list of <key>" where it is no list.
template <typename Fact, typename ReadOne>
std::vector<Fact> read_fact_list(const nlohmann::json& record, const char* key, const std::string& origin,
                                 ReadOne one) {
  std::vector<Fact> facts;
  const auto it = record.find(key);
  if (it == record.end()) return facts;
  if (!it->is_array()) {
    throw UsageError(
        fmt::format("{}: field '{}' is a {}; expected a list of {}", origin, key, it->type_name(), key));
  }
  for (const auto& f : *it) facts.push_back(one(f));
  return facts;
}

// The facts as a JSON list, each written by `one(fact)`.
template <typename Fact, typename WriteOne>
nlohmann::json fact_list_json(const std::vector<Fact>& facts, WriteOne one) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : facts) out.push_back(one(f));
  return out;
}

}  // namespace kvb

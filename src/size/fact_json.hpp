#pragma once
// What size's kind-tagged facts in its JSON share (issue 54 §2: warnings, alternatives, notes,
// engine notes, the KV derivation's steps): each an object {"kind": "<tag>", <its fields>}, the
// kinds a variant writes, an unknown kind refused naming the accepted ones, the enums' stable tags.
// Each family's file (sizing_warnings_json, ...) gives its tags (kind_of), writer (put) and reader
// (get); these templates walk the variant with them.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "catalog/offload_support.hpp"
#include "core/json_file.hpp"

namespace kvb {

// The tags of OffloadLayoutKind and OffloadStatus in a document (stable, unlike their printed words).
inline constexpr std::array<std::pair<OffloadLayoutKind, const char*>, 5> kOffloadLayoutTags{
    {{OffloadLayoutKind::kFullAttention, "full-attention"},
     {OffloadLayoutKind::kMla, "mla"},
     {OffloadLayoutKind::kSparseMla, "sparse-mla"},
     {OffloadLayoutKind::kSlidingHybrid, "sliding-hybrid"},
     {OffloadLayoutKind::kMambaHybrid, "mamba-hybrid"}}};
inline constexpr std::array<std::pair<OffloadStatus, const char*>, 4> kOffloadStatusTags{
    {{OffloadStatus::kOffloadsAll, "offloads-all"},
     {OffloadStatus::kOffloadsPerGroup, "offloads-per-group"},
     {OffloadStatus::kSlidingAsFull, "sliding-as-full"},
     {OffloadStatus::kRefuses, "refuses"}}};

template <typename E, std::size_t N>
const char* tag_of(const std::array<std::pair<E, const char*>, N>& table, E e) {
  for (const auto& [value, tag] : table) {
    if (value == e) return tag;
  }
  return table.front().second;
}

// "<where>: field '<key>' is '<tag>'; expected one of <accepted>".
[[noreturn]] void refuse_tag(const std::string& where, const char* key, const std::string& tag,
                             const std::vector<std::string>& accepted);

// A fact's fields read back, each error naming where ("<origin>: notes"): whole numbers range-
// checked, a vLLM release, an enum by its tag.
class FactFields : public JsonFields {
 public:
  using JsonFields::JsonFields;
  int whole(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi) const {
    return static_cast<int>(json_integer_in(j, key, lo, hi, where()));
  }
  VllmVersion version(const nlohmann::json& j, const char* key) const;
  template <typename E, std::size_t N>
  E tagged(const nlohmann::json& j, const char* key,
           const std::array<std::pair<E, const char*>, N>& table) const {
    const auto tag = text(j, key);
    std::vector<std::string> accepted;
    for (const auto& [value, name] : table) {
      if (tag == name) return value;
      accepted.emplace_back(name);
    }
    refuse_tag(where(), key, tag, accepted);
  }
};

// The tags of Variant's alternatives, in its order, as `kind_of` names them.
template <typename Variant, typename KindOf>
std::vector<std::string> fact_kinds(KindOf kind_of) {
  std::vector<std::string> kinds;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (kinds.emplace_back(kind_of(std::variant_alternative_t<I, Variant>{})), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  return kinds;
}

// {"kind": kind_of(fact), <put(fact, j)'s fields>}.
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

// The object's "kind" ("" where it has none); UsageError "<where>: <noun> is a <type>; expected an
// object with a kind" for anything but an object. `noun` with its article: "a note".
std::string fact_kind(const nlohmann::json& j, const std::string& where, const char* noun);
[[noreturn]] void refuse_kind(const std::string& where, const std::string& kind, const char* noun,
                              const std::vector<std::string>& kinds);

// The fact `fact_to_json` wrote: the alternative whose tag is j's kind, its fields read by
// get(j, fact); an unknown kind refused naming `where` and the kinds kvbench writes.
template <typename Variant, typename KindOf, typename Get>
Variant fact_from_json(const nlohmann::json& j, const std::string& where, const char* noun, KindOf kind_of,
                       Get get) {
  const auto kind = fact_kind(j, where, noun);
  std::optional<Variant> out;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    const auto try_one = [&](auto fact) {
      if (out || kind != kind_of(fact)) return;
      get(j, fact);
      out = fact;
    };
    (try_one(std::variant_alternative_t<I, Variant>{}), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  if (!out) refuse_kind(where, kind, noun, fact_kinds<Variant>(kind_of));
  return *out;
}

// The record's list under `key`: null where absent; UsageError "<origin>: field '<key>' is a
// <type>; expected a list of <plural>" where it is not a list.
const nlohmann::json* fact_list(const nlohmann::json& record, const char* key, const std::string& origin,
                                const char* plural);

// A list of facts as the document's list, each written by `to`.
template <typename Fact, typename To>
nlohmann::json facts_json(const std::vector<Fact>& facts, To to) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : facts) out.push_back(to(f));
  return out;
}

// The record's list under `key`, each read by from(item, origin); absent reads as none.
template <typename Fact, typename From>
std::vector<Fact> read_facts(const nlohmann::json& record, const char* key, const std::string& origin,
                             const char* plural, From from) {
  std::vector<Fact> facts;
  if (const auto* list = fact_list(record, key, origin, plural))
    for (const auto& item : *list) facts.push_back(from(item, origin));
  return facts;
}

}  // namespace kvb

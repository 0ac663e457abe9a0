#pragma once
// What size's kind-tagged facts in its JSON share beyond core/json_facts (issue 54 §2: warnings,
// alternatives, notes, engine notes, the KV derivation's steps): the stable tags of the catalog's
// offload enums, and one reader of a fact's fields (whole numbers, a vLLM release, an enum by tag).
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>

#include "catalog/offload_support.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"

namespace kvb {

// The tags of OffloadLayoutKind and OffloadStatus in a document (stable, unlike their printed words).
inline constexpr TagTable<OffloadLayoutKind, 5> kOffloadLayoutTags{
    {{OffloadLayoutKind::kFullAttention, "full-attention"},
     {OffloadLayoutKind::kMla, "mla"},
     {OffloadLayoutKind::kSparseMla, "sparse-mla"},
     {OffloadLayoutKind::kSlidingHybrid, "sliding-hybrid"},
     {OffloadLayoutKind::kMambaHybrid, "mamba-hybrid"}}};
inline constexpr TagTable<OffloadStatus, 4> kOffloadStatusTags{
    {{OffloadStatus::kOffloadsAll, "offloads-all"},
     {OffloadStatus::kOffloadsPerGroup, "offloads-per-group"},
     {OffloadStatus::kSlidingAsFull, "sliding-as-full"},
     {OffloadStatus::kRefuses, "refuses"}}};

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
  E tagged(const nlohmann::json& j, const char* key, const TagTable<E, N>& table) const {
    return tag_field(*this, j, key, table);
  }
};

}  // namespace kvb

#pragma once
// A KV layout as facts in the size document (issue 54 §2): the allocator's layer types and groups,
// the page, the block size and why, the replication; the reader rebuilds the KvLayout whole, so a
// read-back sizing computes its per-token figures as a live one does. Its derivation steps have
// their own key (size/kv_derivation_json).
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_facts.hpp"
#include "size/kv_layout.hpp"

namespace kvb {

// The enums' tags in a document (stable, unlike their printed words).
inline constexpr TagTable<ReplicationCause, 3> kReplicationCauseTags{
    {{ReplicationCause::kNone, "none"},
     {ReplicationCause::kMlaLatent, "mla-latent"},
     {ReplicationCause::kFewKvHeads, "few-kv-heads"}}};

// {"kv_dtype": ..., "block_size": ..., "types": [{"kind": "full", "layers": ...}], ...}
nlohmann::json kv_layout_to_json(const KvLayout& l);
// Every figure range-checked (UsageError naming `where`); the derivation is not read here.
KvLayout kv_layout_from_json(const nlohmann::json& j, const std::string& where);

// A document written before the layout was recorded keeps only its figures: a layout that
// reproduces them (one full-attention type of `bytes_per_token`, one sliding type of the rest),
// so its printed figures read back as written.
struct OlderLayoutFigures {
  std::int64_t bytes_per_token = 0, bytes_per_token_all_layers = 0, page_bytes = 0;
  int groups = 1;
  bool replicated = false, uniform = true;
};
KvLayout layout_from_figures(const OlderLayoutFigures& f);

}  // namespace kvb

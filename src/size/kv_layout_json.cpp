#include "size/kv_layout_json.hpp"

#include "core/json_file.hpp"

namespace kvb {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 40;  // one layer's bytes per token or state
constexpr std::int64_t kMaxLayoutCount = 1 << 24;          // layers, groups, heads, tokens of a window

constexpr TagTable<KvGroupKind, 3> kKinds{
    {{KvGroupKind::kFull, "full"}, {KvGroupKind::kSliding, "sliding"}, {KvGroupKind::kMamba, "mamba"}}};
constexpr TagTable<BlockSizeSource, 5> kBlockSources{{{BlockSizeSource::kBackendDefault, "backend-default"},
                                                      {BlockSizeSource::kFlag, "flag"},
                                                      {BlockSizeSource::kSparseMla, "sparse-mla"},
                                                      {BlockSizeSource::kMlaBackend, "mla-backend"},
                                                      {BlockSizeSource::kMambaState, "mamba-state"}}};

json type_to_json(const KvLayerType& t) {
  return {{"kind", tag_of(kKinds, t.kind)},
          {"layers", t.layers},
          {"bytes_per_token_layer", t.bytes_per_token_layer},
          {"state_bytes_layer", t.state_bytes_layer},
          {"groups", t.groups}};
}

KvLayerType type_from_json(const JsonFields& r, const json& j) {
  return {.kind = tag_field(r, j, "kind", kKinds),
          .layers = static_cast<int>(r.integer(j, "layers", 0, kMaxLayoutCount)),
          .bytes_per_token_layer = r.integer(j, "bytes_per_token_layer", 0, kMaxBytes),
          .state_bytes_layer = r.integer(j, "state_bytes_layer", 0, kMaxBytes),
          .groups = static_cast<int>(r.integer(j, "groups", 0, kMaxLayoutCount))};
}

BlockSizeReason block_reason_from_json(const JsonFields& r, const json& j) {
  return {.source = tag_field(r, j, "source", kBlockSources),
          .hardware = r.text(j, "hardware"),
          .page_bytes_per_token = r.integer(j, "page_bytes_per_token", 0, kMaxBytes),
          .mamba_state_bytes = r.integer(j, "mamba_state_bytes", 0, kMaxBytes)};
}

}  // namespace

json kv_layout_to_json(const KvLayout& l) {
  json types = json::array();
  for (const auto& t : l.types) types.push_back(type_to_json(t));
  const auto& b = l.block_size_reason;
  return {{"kv_dtype", l.kv_dtype},
          {"kv_dtype_bytes", l.kv_dtype_bytes},
          {"block_size", l.block_size},
          {"block_size_reason",
           {{"source", tag_of(kBlockSources, b.source)},
            {"hardware", b.hardware},
            {"page_bytes_per_token", b.page_bytes_per_token},
            {"mamba_state_bytes", b.mamba_state_bytes}}},
          {"types", types},
          {"group_size", l.group_size},
          {"num_groups", l.num_groups},
          {"page_bytes", l.page_bytes},
          {"uniform", l.uniform},
          {"replicated", l.replicated},
          {"replication",
           {{"cause", tag_of(kReplicationCauseTags, l.replication.cause)},
            {"tp", l.replication.tp},
            {"kv_heads", l.replication.kv_heads}}},
          {"kv_heads_per_rank", l.kv_heads_per_rank},
          {"sliding_window", l.sliding_window}};
}

KvLayout kv_layout_from_json(const json& j, const std::string& where) {
  const JsonFields r(where + ": kv_layout");
  KvLayout l;
  l.kv_dtype = r.text(j, "kv_dtype");
  l.kv_dtype_bytes = static_cast<int>(r.integer(j, "kv_dtype_bytes", 1, 64));
  l.block_size = static_cast<int>(r.integer(j, "block_size", 1, kMaxLayoutCount));
  l.block_size_reason = block_reason_from_json(r, r.object(j, "block_size_reason"));
  for (const auto& t : j.at("types")) l.types.push_back(type_from_json(r, t));
  l.group_size = static_cast<int>(r.integer(j, "group_size", 0, kMaxLayoutCount));
  l.num_groups = static_cast<int>(r.integer(j, "num_groups", 0, kMaxLayoutCount));
  l.page_bytes = r.integer(j, "page_bytes", 0, kMaxBytes);
  l.uniform = r.flag(j, "uniform");
  l.replicated = r.flag(j, "replicated");
  const auto& rep = r.object(j, "replication");
  l.replication = {.cause = tag_field(r, rep, "cause", kReplicationCauseTags),
                   .tp = static_cast<int>(r.integer(rep, "tp", 1, kMaxLayoutCount)),
                   .kv_heads = static_cast<int>(r.integer(rep, "kv_heads", 0, kMaxLayoutCount))};
  l.kv_heads_per_rank = static_cast<int>(r.integer(j, "kv_heads_per_rank", 0, kMaxLayoutCount));
  l.sliding_window = static_cast<int>(r.integer(j, "sliding_window", 0, kMaxLayoutCount));
  return l;
}

KvLayout layout_from_figures(const OlderLayoutFigures& f) {
  KvLayout l;
  l.types.push_back({.kind = KvGroupKind::kFull, .layers = 1, .bytes_per_token_layer = f.bytes_per_token});
  if (f.bytes_per_token_all_layers > f.bytes_per_token) {
    l.types.push_back({.kind = KvGroupKind::kSliding,
                       .layers = 1,
                       .bytes_per_token_layer = f.bytes_per_token_all_layers - f.bytes_per_token});
  }
  l.num_groups = f.groups;
  l.page_bytes = f.page_bytes;
  l.replicated = f.replicated;
  l.uniform = f.uniform;
  return l;
}

}  // namespace kvb

#pragma once
// What `kvbench size` suggests beside its answer (alternatives) and what it notes about it, as
// facts with their figures; output/size/sizing_advice_text words them for the text, a size document
// read back (its JSON holds the facts: size/sizing_advice_json, sizing_notes_json) and the
// simulator's refusal alike.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "catalog/offload_support.hpp"
#include "core/errors.hpp"

namespace kvb {

// One configuration the search tried: "TP 8 x PP 2 fp8".
struct ConfigurationLabel {
  int tp = 1, pp = 1;
  bool fp8 = false;  // FP8 weights, where they shrink the checkpoint's
};

// A mixture-of-experts model whose KV the TP configuration found replicates (MLA's one latent on
// every rank, fewer KV heads than ranks): the same GPUs as DP engines with expert parallelism, the
// largest attention TP that stores each token once (size/configuration_search.cpp).
struct DataParallelTried {
  int dp = 1, tp = 1;              // the DP x EP configuration (dp x tp = the TP configuration's GPUs)
  int tp_found = 1;                // the TP configuration it replaces
  bool mla = false;                // why TP replicates: the MLA latent, else kv_heads < tp_found
  int kv_heads = 0;                // GQA's KV heads
  std::int64_t tp_tokens = 0;      // the TP configuration's GPU pool, tokens of context
  std::int64_t engine_tokens = 0;  // one DP engine's pool
  bool engine_fits = false;        // each engine holds one request of the length asked
  bool chosen = false;             // more distinct tokens on the same GPUs, each engine fitting
  double weights_gib = 0;          // per rank under DP x EP
  double tp_weights_gib = 0;       // per rank under TP
};

// What the configuration search tried, in order, and the first that fits one request.
struct SearchTried {
  std::vector<ConfigurationLabel> too_small;
  bool found = false;
  ConfigurationLabel fits;                         // where found
  std::int64_t tokens = 0;                         // the request length
  std::optional<DataParallelTried> data_parallel;  // a MoE model whose KV the TP configuration replicates
};

// A configuration's flags and what it spans: "--tensor-parallel-size 8 (8 GPUs, one h100 node)".
struct ConfigurationFlags {
  int tp = 1, pp = 1;
  bool fp8 = false;
  int gpus = 1, nodes = 1;
  std::string hardware;
};

// Replicated latent KV (MLA): data-parallel attention keeps one copy per rank.
struct DataParallelAttention {
  int tp = 1;
};
// Replicated KV heads: TP at most the heads, scaled out with data parallelism.
struct TpAtMostKvHeads {
  int kv_heads = 1;
};
struct Fp8KvHalves {
  std::int64_t bytes_per_token = 0;  // per rank, 16-bit
  std::int64_t gpu_tokens = 0;       // what the pool would hold at FP8
};
struct ShorterContextFits {
  std::int64_t max_model_len = 0;
};
struct ConfigurationFits {
  ConfigurationFlags flags;
  std::int64_t gpu_blocks = 0, gpu_tokens = 0;
  double weights_gib = 0;  // per GPU
};
struct NothingFits {
  SearchTried tried;
};
// An alternative read from a size document written before alternatives were facts (a worded
// string): kept as worded, written back as {"kind": "worded", "text": ...}. The engine never makes one.
struct WordedAlternative {
  std::string text;
};
using SizingAlternative = std::variant<DataParallelAttention, TpAtMostKvHeads, Fp8KvHalves,
                                       ShorterContextFits, ConfigurationFits, NothingFits, WordedAlternative>;

// A note worded where it comes from: a model card's in the catalog, a model warning of the resolver.
struct CatalogNote {
  std::string text;
};
struct SlidingWindowNote {
  int sliding_layers = 0, layers = 0, window = 0;
  std::int64_t blocks = 0;  // the most a request holds in a sliding layer
  int groups = 1;           // vLLM's KV cache groups
};
struct Fp8AtLoadNote {};  // --quantization fp8 on a 16-bit checkpoint
struct SearchNote {
  SearchTried tried;
};
// --max-model-len with a k/K/m/M suffix: how vLLM reads it.
struct ContextSuffixNote {
  std::string given;
  std::int64_t tokens = 0;
};
// What vLLM's native CPU tier offloads for this model in this release (catalog/offload_support),
// per rank: the KV cache groups it stores and the bytes per token they take in the tier.
struct TierCoverageNote {
  OffloadLayoutKind kind = OffloadLayoutKind::kFullAttention;
  OffloadStatus status = OffloadStatus::kOffloadsAll;
  VllmVersion version;
  int full_groups = 0, sliding_groups = 0, mamba_groups = 0;
  int group_layers = 0;                      // layer slots per group (tensors sharing one block id)
  int block_size = 16;                       // tokens per slot
  std::int64_t tier_bytes_per_token = 0;     // every offloaded group's bytes: what the tier's capacity counts
  std::int64_t context_bytes_per_token = 0;  // the layers whose KV grows with context (full, indexer)
  std::int64_t indexer_bytes_per_token = 0;  // sparse MLA: the indexer's K cache, part of the above
  std::string needs, source;
};
using SizingNote = std::variant<CatalogNote, SlidingWindowNote, Fp8AtLoadNote, SearchNote, ContextSuffixNote,
                                TierCoverageNote>;

// The simulator's refusal of weights that do not fit: its message names the input; the CLI adds
// the alternatives in words (output/size/sizing_advice_text), as `kvbench size` gives them.
struct WeightsDoNotFit : UsageError {
  WeightsDoNotFit(const std::string& message, std::vector<SizingAlternative> suggested)
      : UsageError(message), alternatives(std::move(suggested)) {}
  std::vector<SizingAlternative> alternatives;
};

}  // namespace kvb

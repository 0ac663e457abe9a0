#pragma once
// The configuration a node of the given hardware needs for one request of --max-model-len:
// tensor parallelism within the node first, then FP8 weights, then pipeline stages across nodes.
// `kvbench size` without --tp sizes what this finds; a configuration that does not fit names the
// one that does (recomputed, with its figures), never a step that may still fail.
#include <optional>
#include <string>

#include "size/sizing.hpp"

namespace kvb {

struct FoundConfiguration {
  SizingInputs inputs;  // the chosen TP, PP and weight quantization
  SizingFit sizing;     // size_fit(inputs): fits
};

struct ConfigurationSearch {
  std::optional<FoundConfiguration> found;  // empty: nothing up to kMaxSearchNodes nodes fits
  SearchTried tried;                        // what was tried, in order, and what fits
};

// Up to 8 nodes of pipeline stages: past that a deployment is a cluster design, not a flag.
inline constexpr int kMaxSearchNodes = 8;

// Candidates in order of cost (GPUs, then weight precision): TP 1, 2, 4, ... up to the node's
// GPUs (where the heads divide) with the checkpoint's weights; the same with FP8 weights where that
// shrinks them; then PP 2, 4, 8 at the node's largest TP, checkpoint weights before FP8.
ConfigurationSearch search_configuration(const SizingInputs& base);

// The flags of a configuration and what it spans ("--tensor-parallel-size 8 --quantization fp8 (8
// GPUs, one h100 node)" in output/size/sizing_advice_text).
ConfigurationFlags configuration_flags(const SizingInputs& in);

}  // namespace kvb

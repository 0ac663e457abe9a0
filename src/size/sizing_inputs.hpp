#pragma once
// The one way to turn a model, a GPU and `vllm serve` flags into SizingInputs, used by `size`,
// the simulator's set-up and the report's default assessment alike, and size's policy for a
// table of configurations.
#include <string>
#include <vector>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "server/serve_settings.hpp"
#include "size/sizing.hpp"

namespace kvb {

// --tp auto (and size without --tp) is resolved here: size/configuration_search.hpp.
SizingInputs make_sizing_inputs(const ModelSpec& model, const HardwareSpec& hw, const ServeSettings& serve,
                                const NodeOverrides& node = {});

// Every model on every GPU. Where --max-model-len used k/m/K/M (serve.max_model_len_as_written),
// each result notes what vLLM reads it as. One configuration whose weights do not
// fit in their checkpoint dtype is followed by the same with FP8 weights, when that differs.
struct SizedConfigurations {
  std::vector<Sizing> results;
  bool fp8_retry = false;  // results[1] is results[0] again with FP8 weights
};
SizedConfigurations size_configurations(const std::vector<ModelSpec>& models,
                                        const std::vector<HardwareSpec>& hws, const ServeSettings& serve,
                                        const NodeOverrides& node);

}  // namespace kvb

#include "advise/workload_sizing.hpp"

#include <fmt/format.h>

#include "advise/tier_advisor.hpp"
#include "catalog/model_catalog.hpp"
#include "size/offload_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {

Sizing size_with_workload(const WorkloadSizingRequest& request) {
  auto scenario = request.scenario;
  std::vector<std::string> model_warnings;
  const auto model = resolve_model(scenario.server.model, model_warnings);
  const auto hw = resolve_hardware(scenario.server.hardware);
  auto in = make_sizing_inputs(model, hw, scenario.server, request.node);
  if (request.link) in.link = request.link;
  if (scenario.calibration) in.calibration = *scenario.calibration;
  // --tp auto is resolved once, so the simulator's step model runs at the same TP as the sizing.
  scenario.server.tensor_parallel_size = in.kv.tp;
  scenario.server.tensor_parallel_auto = false;
  auto s = compute_sizing(in);
  for (const auto& w : model_warnings) s.notes.push_back(w);
  if (!s.fits || !s.offload) {
    s.recommendation.reset();
    s.warnings.push_back(fmt::format("workload {} not simulated: {}", scenario.name,
                                     s.weights_fit ? "one request of max-model-len does not fit the GPU KV cache"
                                                   : "the weights do not fit"));
    return s;
  }
  TierAdviceRequest advice{.scenario = scenario,
                           .objective = request.objective,
                           .slo = request.slo,
                           .floor_gib = s.offload->floor_gib,
                           .cap_gib = s.offload->cap_gib,
                           .link = in.link};
  auto rec = advise_tier_size(advice);
  const auto pinned = static_cast<int>(rec.kv_offloading_size_gib);
  s.recommendation = std::move(rec);
  set_recommended_size(s, in, pinned);
  return s;
}

}  // namespace kvb

#pragma once
// The sizing engine: a pure function of model, hardware, parallelism, vLLM settings and
// workload, producing the Sizing record every printer and the report show.
#include "size/sizing.hpp"

namespace kvb {

// The whole sizing, as a pipeline of steps each reading the one before: size_fit, the CPU tier,
// the reload estimate, notes and alternatives (a configuration that does not fit names the one
// that does: size/configuration_search.hpp), the commands. Throws UsageError for an impossible
// configuration (with the flag and what is accepted).
Sizing compute_sizing(const SizingInputs& in);

// compute_sizing is with_commands(plan_sizing(in), in): a caller that chooses the tier's size
// itself (advise/: a simulated recommendation) plans, replaces the plan's recommendation
// (offload_plan.hpp, with_recommendation), and then writes the commands, once.
Sizing plan_sizing(const SizingInputs& in);
Sizing with_commands(Sizing planned, const SizingInputs& in);

// Its first step alone: the server, its GPU budget, its KV pool and whether one request of
// max-model-len fits. No tier, no alternatives, no commands: what the configuration search needs.
Sizing size_fit(const SizingInputs& in);

}  // namespace kvb

#pragma once
// The sizing engine: a pure function of model, hardware, parallelism, vLLM settings and
// workload, producing the Sizing record every printer and the report show.
#include <optional>
#include <string>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

// What a caller knows before the plan and hands to it, so that the plan is built whole: its own
// notes and warnings, placed after the engine's (the catalog's notes on the model it resolved,
// the workload's ignored server keys, the context suffix's reading), and the traffic it will
// simulate the tier under: a plan that cannot be simulated (SizingPlan::simulable) says so
// (WorkloadNotSimulated), its rule's verdict too.
struct CallerFacts {
  std::vector<SizingNote> notes;
  std::vector<SizingWarning> warnings;
  std::optional<std::string> workload;  // size --workload / --trace: the traffic's name
};

// The whole sizing, in three stages each built once from the one before: size_fit, plan_sizing
// (the CPU tier, the reload estimate, notes and alternatives: a configuration that does not fit
// names the one that does, size/configuration_search.hpp), with_commands. Throws UsageError for
// an impossible configuration (with the flag and what is accepted).
Sizing compute_sizing(const SizingInputs& in, CallerFacts caller = {});

// The first stage: the server, its GPU budget, its KV pool and whether one request of
// max-model-len fits. No tier, no notes, no alternatives: what the configuration search needs.
SizingFit size_fit(const SizingInputs& in);

// The second: the fit with its CPU tier (the rule's size), reload estimate, warnings,
// alternatives and notes, the caller's last.
SizingPlan plan_sizing(const SizingInputs& in, CallerFacts caller = {});

// The last: the commands for the plan's tier, or for `tier`, the one a caller chose instead
// (advise/: a simulated recommendation through offload_plan.hpp's with_recommendation, its fleet
// figures included; the commands read its size and secondary tier, never its fleet).
Sizing with_commands(SizingPlan plan, const SizingInputs& in, std::optional<OffloadPlan> tier = std::nullopt);
// A finished sizing is not commanded again: its commands are written once.
Sizing with_commands(const Sizing& done, const SizingInputs& in,
                     std::optional<OffloadPlan> tier = std::nullopt) = delete;

}  // namespace kvb

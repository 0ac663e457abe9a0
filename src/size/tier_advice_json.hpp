#pragma once
// The CPU tier recommendation's verdict and steps as facts in size's JSON document (issue 54 §2,
// the sizing_warnings_json pattern): each an object {"kind": "<tag>", <its fields>}, named as its
// struct's (size/tier_advice_facts.hpp), read back as the same fact, so output/size/tier_advice_text
// words a read-back recommendation as it words a live one (and so its pinning figures). docs/size.md
// lists each kind and its fields.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/json_file.hpp"
#include "size/pinning_cost.hpp"
#include "size/tier_advice_facts.hpp"

namespace kvb {

// {"kind": "knee", "gib": 45, "share_of_best": 0.95, ...}
nlohmann::json tier_verdict_to_json(const TierVerdict& v);
// The fact `tier_verdict_to_json` wrote; UsageError naming `origin`, "verdict" and the kinds
// kvbench writes for an unknown kind; numbers range-checked.
TierVerdict tier_verdict_from_json(const nlohmann::json& j, const std::string& origin);
std::vector<std::string> tier_verdict_kinds();  // in TierVerdict's order ("rule", "knee", ...)

// {"kind": "simulated", "sizes": 9, "workload": "chat", ...}. A string reads as a WordedStep.
nlohmann::json advice_step_to_json(const AdviceStep& s);
AdviceStep advice_step_from_json(const nlohmann::json& j, const std::string& origin);
std::vector<std::string> advice_step_kinds();  // in AdviceStep's order ("fleet-candidates", ...)

// The recommendation's keys: "verdict" (null without one) and "steps".
void write_tier_advice(const std::optional<TierVerdict>& verdict, const std::vector<AdviceStep>& steps,
                       nlohmann::json& recommendation);
// Read back; a document written before these were facts gives its words instead: "why" reads as
// a WordedVerdict, each line of "reasoning" as a WordedStep.
std::optional<TierVerdict> read_tier_verdict(const nlohmann::json& recommendation, const std::string& origin);
std::vector<AdviceStep> read_advice_steps(const nlohmann::json& recommendation, const std::string& origin);

// What pinning the tier costs, its figures and where they were measured (size/pinning_cost.hpp):
// {"register_s_per_gib", "host_alloc_s_per_gib", "source", "hardware", "stood_in"}.
nlohmann::json pinning_cost_to_json(const PinningCost& c);
PinningCost pinning_cost_from_json(const nlohmann::json& j, const std::string& origin);

// A TierObjective field of a fact, as the document names objectives ("throughput", "ttft-p99", ...).
TierObjective objective_field(const JsonFields& r, const nlohmann::json& j, const char* key);

}  // namespace kvb

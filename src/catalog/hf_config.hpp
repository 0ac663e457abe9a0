#pragma once
// Reads a Hugging Face config.json into a ModelSpec: the fields that decide KV size and
// weights. Parameter counts are estimated from the shapes (said so in `source`).
#include <string>
#include <vector>

#include "catalog/model_spec.hpp"

namespace kvb {

// `origin` names the file in messages. Malformed or truncated JSON, or a config without the
// fields KV sizing needs, throws UsageError. Fields that look KV-relevant but that kvbench
// does not interpret are named in one warning appended to `warnings`.
ModelSpec model_from_hf_config(const std::string& json_text, const std::string& origin,
                               std::vector<std::string>& warnings);

}  // namespace kvb

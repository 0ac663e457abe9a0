#pragma once
// A Hugging Face config.json's quantization_config read from the fields that define the format
// (bits, group sizes, number types), not the method's name alone. The schemas, with their
// sources: docs/models.md, "Quantized checkpoints".
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace kvb {

// The weight dtype name (catalog/weight_format.hpp) `quantization_config` states. UsageError
// naming `origin`, the field and what is accepted for a method kvbench does not size or a field it
// cannot read: an unknown method is refused, never sized as 16-bit.
std::string weight_dtype_from_quantization(const nlohmann::json& quantization_config,
                                           const std::string& origin, std::vector<std::string>& warnings);

}  // namespace kvb

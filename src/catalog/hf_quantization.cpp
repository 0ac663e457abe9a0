#include "catalog/hf_quantization.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "catalog/weight_format.hpp"
#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {
namespace {

using Json = nlohmann::json;

constexpr const char* kMethods =
    "fp8, fbgemm_fp8, compressed-tensors, modelopt, gptq, awq, bitsandbytes or mxfp4";

// One object of quantization_config, its fields read with the path they are refused under.
class Fields {
 public:
  Fields(const Json& j, std::string path, const std::string& origin)
      : j_(j), path_(std::move(path)), origin_(origin) {}

  [[noreturn]] void refuse(const std::string& key, const std::string& problem,
                           const std::string& expected) const {
    throw UsageError(fmt::format("{}: {}.{} {}; expected {}", origin_, path_, key, problem, expected));
  }
  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  const Json& at(const char* key) const { return j_.at(key); }
  int integer(const char* key, std::optional<int> fallback, const char* expected) const {
    if (!has(key)) {
      if (fallback) return *fallback;
      refuse(key, "is missing", expected);
    }
    const auto& v = j_.at(key);
    if (!v.is_number_integer() || v.get<long long>() < -1 || v.get<long long>() > 1'000'000)
      refuse(key, "is " + v.dump(), expected);
    return v.get<int>();
  }
  std::string text(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_string()) refuse(key, "is " + j_.at(key).dump(), "a string");
    return j_.at(key).get<std::string>();
  }
  bool flag(const char* key) const {
    if (!has(key)) return false;
    if (!j_.at(key).is_boolean()) refuse(key, "is " + j_.at(key).dump(), "true or false");
    return j_.at(key).get<bool>();
  }
  Fields child(const std::string& key) const {
    if (!j_.contains(key) || !j_.at(key).is_object()) refuse(key, "is not an object", "an object");
    return Fields(j_.at(key), path_ + "." + key, origin_);
  }
  const Json& json() const { return j_; }
  const std::string& path() const { return path_; }

 private:
  const Json& j_;
  std::string path_;
  const std::string& origin_;
};

// A group size: positive, or -1 (and absent) for one scale per output channel.
int group_size(const Fields& q, const char* key) {
  const int g = q.integer(key, -1, "a positive group size, or -1 for per-channel scales");
  if (g == 0) q.refuse(key, "is 0", "a positive group size, or -1 for per-channel scales");
  return g > 0 ? g : 0;
}

// GPTQ (vLLM quantization/gptq.py GPTQConfig.from_config): `bits` (2, 3, 4 or 8) and
// `group_size` (-1: per channel), both required there; scales and zero points per group.
std::string gptq(const Fields& q) {
  const int bits = q.integer("bits", std::nullopt, "2, 3, 4 or 8 bits (vLLM's GPTQ)");
  if (bits != 2 && bits != 3 && bits != 4 && bits != 8)
    q.refuse("bits", fmt::format("is {}", bits), "2, 3, 4 or 8");
  return int_weight_name(IntKernel::kGptq, bits, group_size(q, "group_size"));
}

// AWQ (vLLM quantization/awq.py AWQConfig.from_config: `bits` or `w_bit`, `group_size` or
// `q_group_size`; "only 4-bit weight quantization is supported for AWQ").
std::string awq(const Fields& q) {
  const char* bits_key = q.has("bits") || !q.has("w_bit") ? "bits" : "w_bit";
  const int bits = q.integer(bits_key, std::nullopt, "4 (vLLM's AWQ)");
  if (bits != 4) q.refuse(bits_key, fmt::format("is {}", bits), "4 (vLLM's AWQ runs 4-bit weights only)");
  const char* group_key = q.has("group_size") || !q.has("q_group_size") ? "group_size" : "q_group_size";
  return int_weight_name(IntKernel::kAwq, bits, group_size(q, group_key));
}

// bitsandbytes (vLLM quantization/bitsandbytes.py BitsAndBytesConfig.from_config): load_in_8bit
// (transformers also writes _load_in_8bit), else 4 bits (vLLM's default when neither is set) of
// bnb_4bit_quant_type (default fp4), with bnb_4bit_use_double_quant.
std::string bitsandbytes(const Fields& q) {
  const bool eight = q.flag("load_in_8bit") || q.flag("_load_in_8bit");
  const bool four = q.flag("load_in_4bit") || q.flag("_load_in_4bit");
  if (eight && four) q.refuse("load_in_8bit", "and load_in_4bit are both true", "one of them");
  if (eight) return "bnb-int8";
  const auto type = to_lower(q.text("bnb_4bit_quant_type", "fp4"));
  if (type != "nf4" && type != "fp4") q.refuse("bnb_4bit_quant_type", "is '" + type + "'", "nf4 or fp4");
  return "bnb-" + type + (q.flag("bnb_4bit_use_double_quant") ? "-dq" : "");
}

// The LM head is sized 16-bit (perf/weight_rules.cpp); a checkpoint whose skip list does not name
// it has it quantized too, which kvbench overstates: said, not silently.
void warn_if_lm_head_quantized(const Fields& q, const char* key, std::vector<std::string>& warnings,
                               const std::string& origin) {
  if (!q.has(key) || !q.at(key).is_array()) return;
  for (const auto& module : q.at(key))
    if (module.is_string() && module.get<std::string>().find("lm_head") != std::string::npos) return;
  warnings.push_back(
      fmt::format("{}: {}.{} does not name lm_head, so the checkpoint quantizes it; kvbench sizes "
                  "the LM head at 16 bits, which overstates the weights",
                  origin, q.path(), key));
}

// ModelOpt (vLLM quantization/modelopt.py from_config): quant_algo at the top of the
// quantization_config or under `quantization` (hf_quant_config.json's layout). FP8 variants
// (FP8, FP8_PER_CHANNEL_PER_TOKEN, FP8_PB_WO) are 8-bit; NVFP4 is 4-bit E2M1 with an FP8 scale
// per 16 values.
std::string modelopt(const Fields& q, std::vector<std::string>& warnings, const std::string& origin) {
  const Fields src = q.has("quantization") ? q.child("quantization") : q;
  const auto algo = to_lower(src.text("quant_algo", ""));
  const char* expected = "FP8, FP8_PER_CHANNEL_PER_TOKEN, FP8_PB_WO or NVFP4";
  std::string dtype;
  if (algo == "fp8" || algo == "fp8_per_channel_per_token" || algo == "fp8_pb_wo")
    dtype = "fp8";
  else if (algo == "nvfp4")
    dtype = "nvfp4";
  else
    src.refuse("quant_algo", algo.empty() ? "is missing" : "is '" + algo + "'", expected);
  warn_if_lm_head_quantized(src, "exclude_modules", warnings, origin);
  return dtype;
}

// One compressed-tensors scheme's weights (compressed_tensors.py reads config_groups.<g>.weights as
// a QuantizationArgs: num_bits, type int|float, strategy, group_size, symmetric): FP8 (float, 8),
// NVFP4 (float, 4, group 16), or integers of 4 or 8 bits with a 16-bit scale per group (strategy
// group) or per channel. Asymmetric schemes also store a zero point per group, at most 8/32 of a
// bit a parameter; not counted.
std::string scheme_weights(const Fields& w) {
  const int bits = w.integer("num_bits", std::nullopt, "the weights' bits");
  const auto type = to_lower(w.text("type", "int"));
  const auto strategy = to_lower(w.text("strategy", "tensor"));
  const int group = strategy == "group" || strategy == "tensor_group" ? group_size(w, "group_size") : 0;
  if (type == "float") {
    if (bits == 8) return "fp8";
    if (bits == 4 && group == 16) return "nvfp4";
    w.refuse("num_bits", fmt::format("is {} with type float and group_size {}", bits, group),
             "8 (FP8) or 4 with group_size 16 (NVFP4)");
  }
  if (type != "int") w.refuse("type", "is '" + type + "'", "int or float");
  // WNA16 (compressed_tensors_wNa16.py, WNA16_SUPPORTED_TYPES_MAP) and W8A8 run 4 or 8 bits.
  if (bits != 4 && bits != 8) w.refuse("num_bits", fmt::format("is {}", bits), "4 or 8 for integer weights");
  if (strategy == "group" && group == 0) w.refuse("group_size", "is missing", "a positive group size");
  return int_weight_name(IntKernel::kCompressedTensors, bits, group);
}

// compressed-tensors: every config_groups.<g>.weights scheme; where groups differ (mixed
// precision), the widest one, said in a warning. Without config_groups, `format` alone.
std::string compressed_tensors(const Fields& q, std::vector<std::string>& warnings,
                               const std::string& origin) {
  if (!q.has("config_groups")) {
    const auto format = q.text("format", "");
    if (format == "float-quantized") return "fp8";
    if (format == "nvfp4-pack-quantized") return "nvfp4";
    q.refuse("config_groups", "is missing",
             "the quantization schemes (or format float-quantized or nvfp4-pack-quantized)");
  }
  const Fields groups = q.child("config_groups");
  std::string widest;
  std::vector<std::string> names;
  for (const auto& item : groups.json().items()) {
    const auto dtype = scheme_weights(groups.child(item.key()).child("weights"));
    if (std::find(names.begin(), names.end(), dtype) == names.end()) names.push_back(dtype);
    if (widest.empty() || weight_format(dtype).bits_per_param > weight_format(widest).bits_per_param)
      widest = dtype;
  }
  if (widest.empty()) q.refuse("config_groups", "is empty", "at least one quantization scheme");
  warn_if_lm_head_quantized(q, "ignore", warnings, origin);
  if (names.size() > 1) {
    warnings.push_back(
        fmt::format("{}: quantization_config.config_groups mixes {}; the weights are sized at the "
                    "widest, {}, which overstates them",
                    origin, join(names, ", "), widest));
  }
  return widest;
}

}  // namespace

std::string weight_dtype_from_quantization(const Json& quantization_config, const std::string& origin,
                                           std::vector<std::string>& warnings) {
  if (!quantization_config.is_object())
    throw UsageError(
        fmt::format("{}: quantization_config is {}; expected an object", origin, quantization_config.dump()));
  const Fields q(quantization_config, "quantization_config", origin);
  if (!q.has("quant_method")) q.refuse("quant_method", "is missing", kMethods);
  if (!q.at("quant_method").is_string())
    q.refuse("quant_method", "is " + q.at("quant_method").dump(), kMethods);
  const auto method = to_lower(q.at("quant_method").get<std::string>());
  if (method == "fp8" || method == "fbgemm_fp8") return "fp8";  // fbgemm_fp8: per-channel FP8 weights
  if (method == "mxfp4") return "mxfp4";
  if (method == "compressed-tensors") return compressed_tensors(q, warnings, origin);
  if (method == "modelopt" || method == "modelopt_fp4") return modelopt(q, warnings, origin);
  if (method == "gptq") return gptq(q);
  if (method == "awq") return awq(q);
  if (method == "bitsandbytes") return bitsandbytes(q);
  q.refuse("quant_method", fmt::format("is '{}', a method kvbench does not size", method), kMethods);
}

}  // namespace kvb

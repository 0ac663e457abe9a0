#include "catalog/weight_format.hpp"

#include <fmt/format.h>

#include <cctype>

#include "core/errors.hpp"

namespace kvb {
namespace {

constexpr const char* kAccepted =
    "bf16, fp16, fp32, fp8, mxfp4, nvfp4, int4, awq, gptq, int<bits>[-g<group>], "
    "gptq-int<bits>[-g<group>], awq-int<bits>[-g<group>], bnb-int8, bnb-nf4, bnb-fp4 (-dq)";

[[noreturn]] void unknown(const std::string& name) {
  throw UsageError(fmt::format("weight dtype '{}' is unknown; expected {}", name, kAccepted));
}

// A format that quantizes the linear layers: embeddings and the LM head stay 16-bit.
WeightFormat quantized(double bits, WeightCompute compute) {
  WeightFormat f;
  f.bits_per_param = bits;
  f.linear_only = true;
  f.compute = compute;
  return f;
}

// A positive decimal number of at most 6 digits, or -1.
int small_number(const std::string& s) {
  if (s.empty() || s.size() > 6) return -1;
  for (const char c : s)
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return -1;
  return std::stoi(s);
}

// "int<B>[-g<G>]" with B in 2..8: the bits, a 16-bit scale per group of G (none: one scale per
// output channel, about 16 / hidden_size bits a parameter, left out), and with zero points (GPTQ
// stores one per group even when symmetric, qzeros; AWQ too) B bits more per group.
WeightFormat integer_format(const std::string& name, const std::string& rest, IntKernel kernel) {
  if (rest.rfind("int", 0) != 0) unknown(name);
  const auto dash = rest.find("-g");
  const int bits = small_number(rest.substr(3, dash == std::string::npos ? std::string::npos : dash - 3));
  const int group = dash == std::string::npos ? 0 : small_number(rest.substr(dash + 2));
  if (bits < 2 || bits > 8 || group < 0 || (dash != std::string::npos && group == 0)) unknown(name);
  const bool zero_points = kernel == IntKernel::kGptq || kernel == IntKernel::kAwq;
  WeightFormat f = quantized(bits + (group > 0 ? (16.0 + (zero_points ? bits : 0)) / group : 0.0),
                             WeightCompute::kWeightOnly);
  f.kernel = kernel;
  return f;
}

// bitsandbytes: LLM.int8() keeps int8 weights with one fp32 scale per row (left out, as above);
// 4-bit NF4/FP4 keeps one fp32 absmax per block of 64 (4 + 32/64 = 4.5 bits); double quantization
// stores those absmax as 8 bits with one fp32 constant per 256 of them (4 + 8/64 + 32/16384).
// QLoRA paper (arXiv 2305.14314) section 3; vLLM quantization/bitsandbytes.py.
WeightFormat bnb_format(const std::string& name) {
  WeightFormat f = quantized(8, WeightCompute::kWeightOnly);
  f.kernel = IntKernel::kBitsAndBytes;
  if (name == "bnb-int8") {
    f.bits_per_param = 8;
  } else if (name == "bnb-nf4" || name == "bnb-fp4") {
    f.bits_per_param = 4 + 32.0 / 64;
  } else if (name == "bnb-nf4-dq" || name == "bnb-fp4-dq") {
    f.bits_per_param = 4 + 8.0 / 64 + 32.0 / (64 * 256);
  } else {
    unknown(name);
  }
  return f;
}

}  // namespace

WeightFormat weight_format(const std::string& name) {
  WeightFormat f;
  if (name == "bf16" || name == "fp16" || name == "float16" || name == "bfloat16") return f;
  if (name == "fp32" || name == "float32") {
    f.bits_per_param = 32;
    return f;
  }
  if (name == "fp8") {  // per-tensor, per-channel or 128x128 block scales: under 0.01 bit, left out
    return quantized(8, WeightCompute::kFp8);
  }
  if (name == "mxfp4") {  // 4-bit E2M1 plus one 8-bit E8M0 scale per 32 values
    f = quantized(4.25, WeightCompute::kMxfp4);
    f.linear_only = false;
    f.experts_only = true;
    return f;
  }
  if (name == "nvfp4") {  // 4-bit E2M1 plus one FP8 E4M3 scale per 16 values (and one fp32 per tensor)
    return quantized(4.5, WeightCompute::kNvfp4);
  }
  // The legacy 4-bit names: 4 bits, a 16-bit scale and a 4-bit zero point per group of 128.
  if (name == "int4" || name == "awq" || name == "gptq") {
    return integer_format(name, "int4-g128", name == "gptq" ? IntKernel::kGptq : IntKernel::kAwq);
  }
  if (name.rfind("bnb-", 0) == 0) return bnb_format(name);
  if (name.rfind("gptq-", 0) == 0) return integer_format(name, name.substr(5), IntKernel::kGptq);
  if (name.rfind("awq-", 0) == 0) return integer_format(name, name.substr(4), IntKernel::kAwq);
  return integer_format(name, name, IntKernel::kCompressedTensors);
}

std::string int_weight_name(IntKernel kernel, int bits, int group_size) {
  const bool legacy_shape = bits == 4 && group_size == 128;
  if (kernel == IntKernel::kGptq && legacy_shape) return "gptq";
  if (kernel == IntKernel::kAwq && legacy_shape) return "awq";
  const std::string prefix = kernel == IntKernel::kGptq ? "gptq-" : kernel == IntKernel::kAwq ? "awq-" : "";
  const std::string group = group_size > 0 ? fmt::format("-g{}", group_size) : "";
  return fmt::format("{}int{}{}", prefix, bits, group);
}

}  // namespace kvb

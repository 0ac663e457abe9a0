#pragma once
// A weight dtype name (ModelSpec::weight_dtype) read as what sizes and times it: the bits one
// quantized parameter takes with its scales, which tensors the format quantizes, and how vLLM
// computes with it. The names and the formulas: docs/models.md, "Quantized checkpoints".
#include <string>

namespace kvb {

enum class WeightCompute {
  k16Bit,      // bf16, fp16, fp32: the 16-bit tensor cores
  kFp8,        // FP8 tensor cores where the GPU has them, else weight-only (FP8 Marlin)
  kMxfp4,      // gpt-oss's MXFP4 experts (perf/weight_rules.cpp)
  kNvfp4,      // FP4 tensor cores where the GPU has them, else weight-only (NVFP4 Marlin)
  kWeightOnly  // integer weights dequantized to 16 bits inside the GEMM
};

// Which weight-only kernel family vLLM picks for an integer format (perf/weight_rules.cpp).
enum class IntKernel { kNone, kGptq, kAwq, kCompressedTensors, kBitsAndBytes };

struct WeightFormat {
  double bits_per_param = 16;  // per quantized parameter, its scales and zero points included
  bool linear_only = false;    // embeddings and the LM head stay 16-bit (every quantized format but MXFP4)
  bool experts_only = false;   // only the routed experts are quantized (MXFP4)
  WeightCompute compute = WeightCompute::k16Bit;
  IntKernel kernel = IntKernel::kNone;
};

// The format a weight dtype name spells; UsageError naming it and the accepted names otherwise.
// Names: bf16 fp16 fp32 fp8 mxfp4 nvfp4; int4 awq gptq (4-bit, scale + zero per 128); int<B>[-g<G>]
// (symmetric, a 16-bit scale per G, per channel without -g); gptq-int<B>[-g<G>] and awq-int<B>[-g<G>]
// (a 16-bit scale and a B-bit zero point per G); bnb-int8; bnb-nf4, bnb-fp4 (absmax per 64), -dq.
WeightFormat weight_format(const std::string& name);

// The canonical name of an integer format: the legacy short names for 4 bits per 128 (gptq, awq).
std::string int_weight_name(IntKernel kernel, int bits, int group_size);

}  // namespace kvb

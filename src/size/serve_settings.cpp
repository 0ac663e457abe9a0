#include "size/serve_settings.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {

BatchDefaults vllm_serve_batch_defaults(const HardwareSpec& hw) {
  const double total_gib = hw.usable_gib > 0 ? hw.usable_gib : hw.hbm_gb * 1e9 / (1024.0 * 1024 * 1024);
  // vLLM tests the CUDA device name ("NVIDIA A100-SXM4-80GB"); a hardware file names the card in
  // its name or description.
  const bool a100 = (to_lower(hw.name) + " " + to_lower(hw.description)).find("a100") != std::string::npos;
  if (total_gib >= 70 && !a100) return {8192, 1024};
  return {2048, 256};
}

std::string to_string(Quantization q) { return q == Quantization::kFp8 ? "fp8" : "none"; }

std::string to_string(OffloadingBackend b) { return b == OffloadingBackend::kLmcache ? "lmcache" : "native"; }

Quantization parse_quantization(const std::string& text, const std::string& what) {
  if (text == "none") return Quantization::kNone;
  if (text == "fp8") return Quantization::kFp8;
  throw UsageError(fmt::format("{} '{}' is not supported; expected none or fp8", what, text));
}

OffloadingBackend parse_offloading_backend(const std::string& text, const std::string& what) {
  if (text == "native") return OffloadingBackend::kNative;
  if (text == "lmcache") return OffloadingBackend::kLmcache;
  throw UsageError(fmt::format("{} '{}': expected native or lmcache", what, text));
}

std::string to_string(EngineKind e) {
  switch (e) {
    case EngineKind::kVllm:
      return "vllm";
    case EngineKind::kLmcache:
      return "lmcache";
    case EngineKind::kSglang:
      return "sglang";
    case EngineKind::kDynamo:
      return "dynamo";
  }
  return "vllm";
}

EngineKind parse_engine(const std::string& text, const std::string& what) {
  for (auto e : {EngineKind::kVllm, EngineKind::kLmcache, EngineKind::kSglang, EngineKind::kDynamo}) {
    if (text == to_string(e)) return e;
  }
  throw UsageError(fmt::format("{} '{}': expected vllm, sglang, lmcache or dynamo", what, text));
}

void check_engine_and_backend(EngineKind engine, OffloadingBackend backend) {
  // SGLang's host tier is HiCache; LMCache's vLLM connector cannot be part of an SGLang command.
  if (engine == EngineKind::kSglang && backend == OffloadingBackend::kLmcache) {
    throw UsageError(
        "--engine sglang with --kv-offloading-backend lmcache: SGLang's CPU tier is HiCache, LMCache's "
        "connector is vLLM's; expected --engine lmcache (vLLM with LMCache) or --kv-offloading-backend "
        "native with --engine sglang");
  }
  if (engine == EngineKind::kDynamo && backend == OffloadingBackend::kLmcache) {
    throw UsageError(
        "--engine dynamo with --kv-offloading-backend lmcache: Dynamo's host tier here is KVBM's; "
        "expected --kv-offloading-backend native with --engine dynamo (or --engine lmcache)");
  }
}

}  // namespace kvb

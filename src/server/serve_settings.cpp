#include "server/serve_settings.hpp"

#include <fmt/format.h>

#include "catalog/vllm_releases.hpp"
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

std::string to_string(OffloadingBackend b) {
  switch (b) {
    case OffloadingBackend::kNative:
      return "native";
    case OffloadingBackend::kLmcache:
      return "lmcache";
    case OffloadingBackend::kSimple:
      return "simple";
  }
  return "native";
}

Quantization parse_quantization(const std::string& text, const std::string& what) {
  if (text == "none") return Quantization::kNone;
  if (text == "fp8") return Quantization::kFp8;
  throw UsageError(fmt::format("{} '{}' is not supported; expected none or fp8", what, text));
}

OffloadingBackend parse_offloading_backend(const std::string& text, const std::string& what) {
  if (text == "native") return OffloadingBackend::kNative;
  if (text == "lmcache") return OffloadingBackend::kLmcache;
  if (text == "simple") return OffloadingBackend::kSimple;
  throw UsageError(fmt::format(
      "{} '{}': expected native, lmcache or simple (vLLM's SimpleCPUOffloadConnector)", what, text));
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
  if (engine != EngineKind::kVllm && backend == OffloadingBackend::kSimple) {
    throw UsageError(fmt::format(
        "--engine {} with --kv-offloading-backend simple: the SimpleCPUOffloadConnector is vLLM's own "
        "connector; expected --engine vllm with it, or --kv-offloading-backend native",
        to_string(engine)));
  }
  if (engine == EngineKind::kDynamo && backend == OffloadingBackend::kLmcache) {
    throw UsageError(
        "--engine dynamo with --kv-offloading-backend lmcache: Dynamo's host tier here is KVBM's; "
        "expected --kv-offloading-backend native with --engine dynamo (or --engine lmcache)");
  }
}

void check_backend_release(OffloadingBackend backend, const VllmVersion& v) {
  const auto& first = release_fact(ReleaseChange::kSimpleConnector);
  if (backend == OffloadingBackend::kSimple && !has_change(v, ReleaseChange::kSimpleConnector)) {
    throw UsageError(fmt::format(
        "--kv-offloading-backend simple with --vllm-version {}: vLLM has the SimpleCPUOffloadConnector from "
        "{}.{} ({}); expected --vllm-version {}.{} or newer, or --kv-offloading-backend native",
        to_string(v), first.from.major, first.from.minor, "vLLM PR #37160", first.from.major,
        first.from.minor));
  }
}

}  // namespace kvb

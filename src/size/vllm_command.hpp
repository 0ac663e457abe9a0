#pragma once
// The exact `vllm serve` command line for a sizing, and the ROCm docker form on AMD.
#include "size/sizing.hpp"

namespace kvb {

struct VllmCommands {
  std::string serve;        // flag form: --kv-offloading-backend / --kv-offloading-size
  std::string legacy;       // --kv-transfer-config with num_cpu_blocks (before the flag existed)
  std::string rocm_docker;  // empty on NVIDIA
  std::string version_note;
  std::string secondary;  // the Simple connector's disk backend (--secondary-tier-size), else empty
};

VllmCommands vllm_commands(const Sizing& s, const SizingInputs& in);

// Sets every command of `s` for its recommended tier: vLLM's (flag, legacy, ROCm docker) and,
// for --engine sglang or lmcache, that engine's command line and sizing facts.
void set_commands(Sizing& s, const SizingInputs& in);

}  // namespace kvb

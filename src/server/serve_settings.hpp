#pragma once
// The `vllm serve` flags that decide sizing, typed: parsed once by whoever reads them (the size
// command's options, a scenario's server keys, the report's defaults) and turned into
// SizingInputs by one builder (size/sizing_inputs.hpp).
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/vllm_host_memory.hpp"
#include "perf/copy_method.hpp"
#include "perf/link_curve.hpp"

namespace kvb {

enum class Quantization { kNone, kFp8 };  // --quantization: the checkpoint's dtype, or fp8
// --kv-offloading-backend: vLLM's OffloadingConnector, LMCache's connector, or (kvbench's name for
// it) vLLM's SimpleCPUOffloadConnector, 0.19 and newer.
enum class OffloadingBackend { kNative, kLmcache, kSimple };
// Where the native OffloadingConnector's tier lives: host memory (vLLM's CPU spec); files (llm-d's
// SharedStorageOffloadingSpec, llm-d-kv-cache kv_connectors/llmd_fs_backend: sim/file_tier.hpp);
// or both, as two connectors under vLLM's MultiConnector, the CPU tier first (the secondary tier
// side by side: sim/secondary_tier.hpp).
enum class OffloadMedium { kCpu, kFile, kCpuAndFile };
// The server the command line is written for: vLLM (native offloading), vLLM with LMCache's
// connector, SGLang with HiCache, or vLLM under NVIDIA Dynamo with KVBM's host tier.
enum class EngineKind { kVllm, kLmcache, kSglang, kDynamo };

std::string to_string(Quantization q);
std::string to_string(OffloadingBackend b);
// UsageError naming `what` and the accepted values.
Quantization parse_quantization(const std::string& text, const std::string& what);
OffloadingBackend parse_offloading_backend(const std::string& text, const std::string& what);
std::string to_string(EngineKind e);
EngineKind parse_engine(const std::string& text, const std::string& what);
// UsageError for a pair that names two servers (SGLang with vLLM's LMCache connector).
void check_engine_and_backend(EngineKind engine, OffloadingBackend backend);
// UsageError for a connector the release does not have (the Simple connector before 0.19).
void check_backend_release(OffloadingBackend backend, const VllmVersion& v);

// What the counts can be, checked where a flag or a scenario key is read (before any narrowing):
// no node or cluster serves one model over more ranks, and vLLM's scheduler takes no more
// sequences per step than this (its --max-num-seqs default is 256 to 1024).
inline constexpr std::int64_t kMaxParallelRanks = 1024;
inline constexpr std::int64_t kMaxNumSeqs = 1'000'000;

// What `vllm serve` takes for --max-num-batched-tokens and --max-num-seqs when they are not given:
// 8,192 and 1,024 on a GPU of 70 GiB or more that is not an A100, 2,048 and 256 on the others
// (vllm/engine/arg_utils.py, get_batch_defaults, the same from 0.11 to 0.19 and on main of
// 2026-05-24; the A100 is left out because larger batches cost it throughput, vLLM PR #17885).
// vLLM compares the device's total memory as the runtime reports it (usable_gib).
struct BatchDefaults {
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
};
BatchDefaults vllm_serve_batch_defaults(const HardwareSpec& hw);

struct ServeSettings {
  int tensor_parallel_size = 1;
  bool tensor_parallel_auto = false;  // --tp auto: the smallest TP at which one request fits
  int pipeline_parallel_size = 1;
  // --data-parallel-size: engines, each with its own scheduler, KV cache and CPU tier (vLLM's one
  // core engine per DP rank, docs/serving/data_parallel_deployment.md); a MoE model's expert
  // layers span all DP x TP ranks. --enable-expert-parallel: those ranks hold whole experts
  // (EP size = DP x TP) instead of a slice of each (docs/serving/expert_parallel_deployment.md).
  int data_parallel_size = 1;
  bool enable_expert_parallel = false;
  double gpu_memory_utilization = 0.9;
  std::optional<std::uint64_t> kv_cache_memory;  // bytes, as vLLM's --kv-cache-memory-bytes
  std::string kv_cache_dtype = "auto";
  int block_size = 0;                         // 0 = the attention backend's default
  std::optional<std::int64_t> max_model_len;  // tokens, resolved where read; absent = the model's maximum
  // --max-model-len as written where it used a k/m/K/M suffix ("32k"), for the note on what vLLM
  // reads it as; "" otherwise.
  std::string max_model_len_as_written;
  // Absent: what `vllm serve` takes on the GPU served (vllm_serve_batch_defaults).
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<std::int64_t> max_num_seqs;
  std::optional<double> kv_offloading_size;  // GiB across ranks; absent = no CPU tier
  OffloadingBackend kv_offloading_backend = OffloadingBackend::kNative;
  Quantization quantization = Quantization::kNone;
  int draft_layers = 0;                 // EAGLE / MTP layers that hold KV
  bool hybrid_kv_cache_manager = true;  // false = --disable-hybrid-kv-cache-manager
  // How the server's CPU tier copies (ce: vLLM's native tier, one cudaMemcpyAsync per block;
  // ce-batch; kernel): which records of a --link-profile describe its link, and whether its
  // transfers take SMs from the engine's steps. One field for size and simulate alike.
  Method link_method = Method::kCe;
  // --vllm-version: the release served. How the tier takes host memory and what it costs the
  // engine (sim/tier_costs.hpp) differ between releases.
  VllmVersion vllm_version = kNewestModelledVllm;
  // A secondary tier behind the CPU tier (vLLM >= 0.22 tiering; the simulator's, sim/secondary_tier.hpp):
  // its size in GiB across ranks (absent: none), the disk's read and write rates (GB/s, the node's)
  // and per-chunk latency, stated by the operator or read from a `kvbench storage` result.
  std::optional<double> secondary_tier_size;
  std::optional<double> secondary_read_gbps, secondary_write_gbps;
  double secondary_latency_us = 0;
  // Where the rates came from: empty where stated; else the storage result and the chunk size read.
  std::string secondary_rates_source;
  // kv-offloading-medium: file makes the kv-offloading-size tier a file system at the secondary-*
  // rates (the one tier: no CPU tier in front of it); cpu+file runs the CPU tier and a file tier of
  // secondary-tier-size side by side (MultiConnector), not cascaded as vLLM's tiering does.
  OffloadMedium kv_offloading_medium = OffloadMedium::kCpu;
};

// What kvbench asks beyond vLLM's flags: the node it sizes for and the sessions to keep warm.
struct NodeOverrides {
  std::optional<double> gpu_memory_gib;  // --gpu-memory
  std::optional<double> host_memory_gb;  // --host-memory, per node
  std::optional<int> concurrency;        // sessions of max-model-len for the CPU tier
  // --link-profile: a kvbench dma JSON of this node, its ServeSettings::link_method records fitted
  // by the command that read it (dma/link_profile_fit.hpp); none: the hardware table's link.
  std::optional<LinkProfile> link;
  std::string calibration;                // --calibration: the time model's efficiencies (YAML)
  EngineKind engine = EngineKind::kVllm;  // --engine: which server's command line to write
  std::string secondary_tier_dir;         // --secondary-tier-dir: in the commands (empty: a placeholder)
  // size without --tp: whether the configuration search may answer with DP x EP (size's; the
  // simulator times one engine at TP and keeps the search to TP, FP8 and PP).
  bool search_data_parallel = false;
};

}  // namespace kvb

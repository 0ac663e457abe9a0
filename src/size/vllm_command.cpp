#include "size/vllm_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "catalog/offload_support.hpp"
#include "catalog/vllm_releases.hpp"
#include "core/units.hpp"
#include "size/secondary_tier_plan.hpp"

// Not prose: every fmt::format here builds a flag, an environment variable or a command line, which
// is the product `kvbench size` prints; the notes on them are facts (size/engine_notes).
namespace kvb {
namespace {

// The vLLM flags that differ from vLLM's defaults, in the order an operator reads them.
std::vector<std::string> serve_flags(const Sizing& s, const SizingInputs& in) {
  std::vector<std::string> f;
  const auto& v = s.server;
  if (v.tensor_parallel_size > 1)
    f.push_back(fmt::format("--tensor-parallel-size {}", v.tensor_parallel_size));
  if (v.pipeline_parallel_size > 1)
    f.push_back(fmt::format("--pipeline-parallel-size {}", v.pipeline_parallel_size));
  if (v.data_parallel_size > 1) f.push_back(fmt::format("--data-parallel-size {}", v.data_parallel_size));
  if (v.expert_parallel) f.push_back("--enable-expert-parallel");
  const auto len = s.fits ? v.max_model_len : s.estimated_max_model_len;
  f.push_back(fmt::format("--max-model-len {}", len));
  if (in.kv_cache_memory_bytes) {
    // vLLM's engine argument is kv_cache_memory_bytes: the flag is --kv-cache-memory-bytes.
    f.push_back(fmt::format("--kv-cache-memory-bytes {}", *in.kv_cache_memory_bytes));
  } else {
    f.push_back(fmt::format("--gpu-memory-utilization {:.2f}", in.gpu_memory_utilization));
  }
  if (in.kv.kv_cache_dtype != "auto") f.push_back(fmt::format("--kv-cache-dtype {}", in.kv.kv_cache_dtype));
  if (in.kv.block_size != 0) f.push_back(fmt::format("--block-size {}", in.kv.block_size));
  // Only where they differ from what vLLM takes on this GPU.
  const auto batch = vllm_serve_batch_defaults(in.hw);
  if (v.max_num_batched_tokens != batch.max_num_batched_tokens) {
    f.push_back(fmt::format("--max-num-batched-tokens {}", v.max_num_batched_tokens));
  }
  if (v.max_num_seqs != batch.max_num_seqs) f.push_back(fmt::format("--max-num-seqs {}", v.max_num_seqs));
  if (in.quantization == Quantization::kFp8) f.push_back("--quantization fp8");
  // Off by the release's connector: vLLM turns it off itself, the command need not say so.
  if (!in.kv.hybrid_manager && !in.hybrid_off_by_connector) f.push_back("--disable-hybrid-kv-cache-manager");
  return f;
}

// The SimpleCPUOffloadConnector: one byte count per rank (cpu_bytes_to_use_per_rank overrides
// cpu_bytes_to_use / world size; both given, equal, so no release warns of a mismatch:
// simple_cpu_offload_connector.py). Before the hybrid manager stays on under a connector (0.21),
// a hybrid model keeps it only when asked (PR #37160's own command).
void simple_forms(const Sizing& s, const SizingInputs& in, std::vector<std::string>& flag_form,
                  std::vector<std::string>& connector_form) {
  const auto per_rank = static_cast<std::int64_t>(
      std::floor(s.offload->recommended_gib() * kGiB / std::max(1, s.server.world_size())));
  connector_form.push_back(fmt::format(
      "--kv-transfer-config '{{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\","
      "\"kv_connector_extra_config\":{{\"cpu_bytes_to_use\":{},\"cpu_bytes_to_use_per_rank\":{},"
      "\"lazy_offload\":false}}}}'",
      per_rank * std::max(1, s.server.world_size()), per_rank));
  if (!s.layout.uniform && in.kv.hybrid_manager &&
      !has_change(in.vllm_version, ReleaseChange::kHybridOffload)) {
    flag_form.push_back("--no-disable-hybrid-kv-cache-manager");
    connector_form.push_back("--no-disable-hybrid-kv-cache-manager");
  }
}

// Which releases the commands are for, and how the connector form sizes the tier.
std::string version_note(bool simple, bool lmcache) {
  if (simple) {
    const auto& first = release_fact(ReleaseChange::kSimpleConnector).from;
    return fmt::format(
        "targets vLLM {}.{} or newer: VLLM_USE_SIMPLE_KV_OFFLOAD=1 turns the --kv-offloading-size tier (GiB "
        "across all ranks) into the SimpleCPUOffloadConnector's; the connector form gives each rank its "
        "share, cpu_bytes_to_use_per_rank (bytes), eager offload (lazy_offload false)",
        first.major, first.minor);
  }
  if (lmcache) {
    return "targets vLLM with the --kv-offloading-size flag (0.12 or newer, soft); the legacy form runs "
           "LMCache through its connector, sized per rank by LMCACHE_MAX_LOCAL_CPU_SIZE (GiB)";
  }
  return "targets vLLM with the --kv-offloading-size flag (0.12 or newer, soft); vLLM 0.11.x takes the "
         "legacy --kv-transfer-config form, whose num_cpu_blocks counts blocks, not GiB";
}

std::string multiline(const std::string& head, const std::vector<std::string>& flags) {
  std::string out = head;
  for (const auto& f : flags) out += " \\\n    " + f;
  return out;
}

// vLLM's tiering (TieringOffloadingSpec, chosen by spec_name: vllm/v1/kv_offload/factory.py) with a
// file-system tier behind the CPU tier: cpu_bytes_to_use is the CPU tier as --kv-offloading-size
// writes it (GiB x 2^30, the server's: vllm/config/vllm.py); the "fs" tier takes root_dir and no size
// (vllm/v1/kv_offload/tiering/spec.py, tiering/fs/manager.py).
std::string tiering_config(const SecondaryTierPlan& p) {
  return fmt::format(
      "--kv-transfer-config '{{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":\"kv_both\","
      "\"kv_connector_extra_config\":{{\"spec_name\":\"TieringOffloadingSpec\",\"cpu_bytes_to_use\":{},"
      "\"secondary_tiers\":[{{\"type\":\"fs\",\"root_dir\":\"{}\"}}]}}}}'",
      p.cpu_bytes, p.dir);
}

// The Simple connector's disk backend (vLLM PR #49644): a preallocated file per rank (.rank_N).
std::string simple_disk_config(const SecondaryTierPlan& p) {
  return fmt::format(
      "--kv-transfer-config '{{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\","
      "\"kv_connector_extra_config\":{{\"kv_offload_backend\":\"disk\",\"disk_path\":\"{}/"
      "kv_offload.bin\",\"disk_capacity_bytes\":{}}}}}'",
      p.dir, p.bytes_per_rank);
}

// With a stated secondary tier: vLLM's tiering is the command, and has no flag or legacy form; the
// Simple connector's disk backend is a command of its own (the disk instead of the CPU tier).
// A simulated tiering recommendation also gives the Simple disk backend at the same capacity, where
// the release has it (the disk instead of the CPU tier: an alternative, not simulated).
void secondary_forms(const Sizing& s, const SizingInputs& in, std::vector<std::string> flags,
                     VllmCommands& c) {
  // LMCache's, SGLang's and KVBM's disk tiers are in the engine's own command instead.
  if (s.secondary->kind != SecondaryTierKind::kTieringFs &&
      s.secondary->kind != SecondaryTierKind::kSimpleDisk)
    return;
  if (s.secondary->kind == SecondaryTierKind::kTieringFs) {
    c.legacy.clear();
    const auto& first = release_fact(ReleaseChange::kTiering).from;
    c.version_note = fmt::format(
        "targets vLLM {}.{} or newer: TieringOffloadingSpec, the CPU tier as cpu_bytes_to_use (bytes across "
        "all ranks) and a file-system tier under root_dir",
        first.major, first.minor);
    if (s.secondary->simulated && has_change(in.vllm_version, ReleaseChange::kSimpleDiskBackend)) {
      const auto disk = plan_secondary_tier(s.secondary->gib, OffloadingBackend::kSimple, s.secondary->ranks,
                                            0, s.secondary->dir);
      flags.push_back(simple_disk_config(disk));
      c.secondary = multiline("vllm serve " + s.server.hf_id, flags);
    }
    return;
  }
  flags.push_back(simple_disk_config(*s.secondary));
  c.secondary = multiline("vllm serve " + s.server.hf_id, flags);
}

// The CPU tier's flags (and its connector form in `legacy_form`); with a stated secondary tier
// behind vLLM's native tier, the tiering configuration in their place.
void tier_flags(const Sizing& s, const SizingInputs& in, std::vector<std::string>& flag_form,
                std::vector<std::string>& legacy_form) {
  if (s.secondary && s.secondary->kind == SecondaryTierKind::kTieringFs) {
    flag_form.push_back(tiering_config(*s.secondary));
  } else {
    // vLLM's flag knows native and lmcache: the Simple connector is native's, chosen by environment.
    const auto flag_backend = in.offloading_backend == OffloadingBackend::kSimple ? OffloadingBackend::kNative
                                                                                  : in.offloading_backend;
    flag_form.push_back(fmt::format("--kv-offloading-backend {}", to_string(flag_backend)));
    flag_form.push_back(fmt::format("--kv-offloading-size {}", s.offload->recommended_gib()));
  }
  // A flag the release's native tier needs for this layout (a Mamba hybrid's prefix caching).
  const auto& support = offload_support(offload_layout_kind(in.model), in.hw.vendor, in.vllm_version);
  if (in.offloading_backend == OffloadingBackend::kNative && *support.needs)
    flag_form.push_back(support.needs);
  if (in.offloading_backend == OffloadingBackend::kLmcache) {
    // LMCache's connector; its local CPU backend takes its size per rank in GiB from the
    // environment (LMCache multiplies max_local_cpu_size by 1024**3).
    legacy_form.push_back(
        "--kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'");
  } else if (in.offloading_backend == OffloadingBackend::kSimple) {
    simple_forms(s, in, flag_form, legacy_form);
  } else {
    legacy_form.push_back(
        fmt::format("--kv-transfer-config '{{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":"
                    "\"kv_both\",\"kv_connector_extra_config\":{{\"num_cpu_blocks\":{}}}}}'",
                    s.offload->num_cpu_blocks));
  }
}

}  // namespace

VllmCommands vllm_commands(const Sizing& s, const SizingInputs& in) {
  VllmCommands c;
  auto flags = serve_flags(s, in);
  auto flag_form = flags;
  auto legacy_form = flags;
  const bool tier = s.offload && s.offload->recommended_gib() > 0;  // 0: offloading does not pay
  if (tier) tier_flags(s, in, flag_form, legacy_form);
  const bool simple = tier && in.offloading_backend == OffloadingBackend::kSimple;
  c.serve = multiline((simple ? "VLLM_USE_SIMPLE_KV_OFFLOAD=1 " : "") + ("vllm serve " + s.server.hf_id),
                      flag_form);
  const bool lmcache = tier && in.offloading_backend == OffloadingBackend::kLmcache;
  std::string legacy_env = lmcache ? fmt::format("LMCACHE_LOCAL_CPU=True LMCACHE_MAX_LOCAL_CPU_SIZE={:.1f} ",
                                                 s.offload->lmcache_gib_per_rank)
                                   : std::string();
  // LMCache's local_disk: a file:// URL of the directory and GiB per rank (LMCache docs, Configuring
  // LMCache: local_disk / max_local_disk_size; lmcache/v1/config.py).
  if (lmcache && s.secondary && s.secondary->kind == SecondaryTierKind::kLmcacheDisk)
    legacy_env += fmt::format("LMCACHE_LOCAL_DISK=\"file://{}/\" LMCACHE_MAX_LOCAL_DISK_SIZE={:.1f} ",
                              s.secondary->dir, s.secondary->engine_size);
  c.legacy = multiline(legacy_env + "vllm serve " + s.server.hf_id, legacy_form);
  if (in.hw.vendor == GpuVendor::kAmd) {
    std::vector<std::string> docker = {"--device /dev/kfd --device /dev/dri --group-add video --ipc=host",
                                       "--security-opt seccomp=unconfined -p 8000:8000",
                                       "-v ~/.cache/huggingface:/root/.cache/huggingface",
                                       simple ? "-e VLLM_USE_SIMPLE_KV_OFFLOAD=1" : "",
                                       "vllm/vllm-openai-rocm:latest",
                                       "--model " + s.server.hf_id};
    std::erase(docker, std::string());
    docker.insert(docker.end(), flag_form.begin(), flag_form.end());
    c.rocm_docker = multiline("docker run --rm", docker);
  }
  c.version_note = version_note(simple, lmcache);
  if (tier && s.secondary) secondary_forms(s, in, flags, c);
  return c;
}

namespace {

// SGLang with HiCache: its host pool is --hicache-size GB (10^9) on each rank
// (python/sglang/srt/mem_cache/memory_pool_host.py: size = hicache_size * 1e9 // size_per_token,
// one pool per TP rank), and must be larger than the device pool (asserted there).
std::string sglang_command(Sizing& s, const SizingInputs& in) {
  std::vector<std::string> f;
  std::string env;
  if (s.server.tensor_parallel_size > 1)
    f.push_back(fmt::format("--tp-size {}", s.server.tensor_parallel_size));
  if (s.server.pipeline_parallel_size > 1)
    f.push_back(fmt::format("--pp-size {}", s.server.pipeline_parallel_size));
  f.push_back(
      fmt::format("--context-length {}", s.fits ? s.server.max_model_len : s.estimated_max_model_len));
  if (in.kv.kv_cache_dtype.rfind("fp8", 0) == 0) f.push_back("--kv-cache-dtype fp8_e4m3");
  if (in.quantization == Quantization::kFp8) f.push_back("--quantization fp8");
  const double gib = s.offload ? s.offload->recommended_gib() : 0;
  s.engine_notes.clear();
  if (gib > 0) {
    const double device_gb = s.kv_gib_available * (1024.0 * 1024 * 1024) / 1e9;  // per rank
    const double wanted_gb = gib * (1024.0 * 1024 * 1024) / 1e9 / s.server.world_size();
    double host_gb = std::ceil(wanted_gb);
    if (host_gb <= device_gb) {
      host_gb = std::floor(device_gb) + 1;
      s.engine_notes.push_back(SglangHostRaised{host_gb, device_gb});
    }
    s.hicache_size_gb_per_rank = host_gb;
    s.hicache_ratio = device_gb > 0 ? host_gb / device_gb : 0;
    f.push_back("--enable-hierarchical-cache");
    f.push_back(fmt::format("--hicache-size {:.0f}", host_gb));
    f.push_back("--hicache-mem-layout page_first");
    f.push_back("--hicache-io-backend kernel");
    f.push_back("--hicache-write-policy write_through");
    // HiCache's L3 "file" backend (python/sglang/srt/mem_cache/hicache_storage.py, HiCacheFile): its
    // directory comes from SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR and it takes no size.
    if (s.secondary && s.secondary->kind == SecondaryTierKind::kSglangFile) {
      f.push_back("--hicache-storage-backend file");
      env = fmt::format("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR={} \\\n", s.secondary->dir);
    }
    s.engine_notes.push_back(SglangHicacheSize{gib, s.server.world_size(), wanted_gb});
    s.engine_notes.push_back(SglangHicacheRatio{s.hicache_ratio, device_gb});
    s.engine_notes.push_back(SglangLayouts{});
  }
  std::string out = env + "python -m sglang.launch_server --model-path " + s.server.hf_id;
  for (const auto& x : f) out += " \\\n    " + x;
  return out;
}

// NVIDIA Dynamo's KV block manager (KVBM) behind vLLM. DYN_KVBM_CPU_CACHE_GB is decimal GB for the
// whole engine instance: the leader divides GB x 10^9 by the bytes of one block summed over its TP
// workers and each worker allocates that many blocks of its share (ai-dynamo/dynamo,
// lib/llm/src/block_manager/distributed/leader.rs: compute_num_blocks, "For TP, sum
// bytes_per_block"). KVBM is write-through: its docs want the CPU cache above the GPU KV cache, or it
// churns, and about 100 GB as a rule of thumb (docs.nvidia.com/dynamo, KVBM Configuration Reference).
std::string dynamo_command(Sizing& s, const SizingInputs& in) {
  std::vector<std::string> env;
  s.kvbm_cpu_cache_gb = 0;
  s.kvbm_host_blocks = 0;
  s.kvbm_init_timeout_s = 0;
  const double gib = s.offload ? s.offload->recommended_gib() : 0;
  if (gib > 0) {
    const auto& o = *s.offload;
    s.kvbm_cpu_cache_gb = std::ceil(gib * kGiB / 1e9);
    s.kvbm_host_blocks = static_cast<std::int64_t>(
        std::floor(s.kvbm_cpu_cache_gb * 1e9 / static_cast<double>(o.cpu_block_bytes)));
    env.push_back(fmt::format("DYN_KVBM_CPU_CACHE_GB={:.0f}", s.kvbm_cpu_cache_gb));
    // KVBM's disk tier (G3) behind it: lib/runtime/src/config/environment_names.rs.
    if (s.secondary && s.secondary->kind == SecondaryTierKind::kKvbmDisk) {
      env.push_back(fmt::format("DYN_KVBM_DISK_CACHE_GB={:.0f}", s.secondary->engine_size));
      env.push_back("DYN_KVBM_DISK_CACHE_DIR=" + s.secondary->dir);
    }
    s.engine_notes.push_back(KvbmCacheSize{s.server.world_size(), gib, s.kvbm_cpu_cache_gb,
                                           s.kvbm_host_blocks, s.layout.block_size,
                                           static_cast<double>(o.cpu_block_bytes)});
    s.engine_notes.push_back(KvbmAgainstGpuPool{o.floor_gib, s.kvbm_cpu_cache_gb * 1e9 > o.floor_gib * kGiB,
                                                o.recommendation.simulated()});
    // KVBM allocates and pins the whole tier while its leader waits for the workers (120 s by default).
    const double pin_s = o.recommendation.pin_seconds_high;
    if (pin_s > 60) {
      s.kvbm_init_timeout_s = static_cast<int>(std::ceil(std::max(120.0, 2 * pin_s) / 60) * 60);
      env.push_back(fmt::format("DYN_KVBM_LEADER_WORKER_INIT_TIMEOUT_SECS={}", s.kvbm_init_timeout_s));
      s.engine_notes.push_back(KvbmInitTimeout{pin_s, s.kvbm_init_timeout_s});
    }
    s.engine_notes.push_back(KvbmStandalone{});
  }
  auto flags = serve_flags(s, in);
  if (gib > 0) {
    flags.push_back(
        "--kv-transfer-config '{\"kv_connector\":\"DynamoConnector\",\"kv_connector_module_path\":"
        "\"kvbm.vllm_integration.connector\",\"kv_role\":\"kv_both\"}'");
  }
  std::string head;
  for (const auto& e : env) head += e + " \\\n";
  return multiline(head + "python3 -m dynamo.vllm --model " + s.server.hf_id, flags);
}

}  // namespace

void set_commands(Sizing& s, const SizingInputs& in) {
  s.engine = in.engine;
  if (!s.weights_fit) return;  // no command line to give: the server would fail to load
  s.secondary.reset();
  if (in.secondary_tier_gib) {
    check_secondary_blocks(*in.secondary_tier_gib, s.offload ? s.offload->cpu_block_bytes : 0);
    if (in.engine == EngineKind::kDynamo)
      check_kvbm_disk(*in.secondary_tier_gib, s.offload ? s.offload->recommended_gib() : 0);
    s.secondary =
        plan_secondary_tier(*in.secondary_tier_gib, in.offloading_backend, s.server.world_size(),
                            s.offload ? s.offload->recommended_gib() : 0, in.secondary_tier_dir, in.engine);
  }
  if (s.secondary && s.offload && s.offload->recommendation.secondary)
    s.secondary->simulated = s.offload->recommendation.secondary->pays();
  const auto cmds = vllm_commands(s, in);
  s.vllm_command = cmds.serve;
  s.vllm_command_legacy = cmds.legacy;
  s.rocm_docker_command = cmds.rocm_docker;
  s.vllm_version_note = cmds.version_note;
  s.secondary_command = cmds.secondary;
  s.engine_command.clear();
  s.engine_notes.clear();
  if (in.engine == EngineKind::kSglang) s.engine_command = sglang_command(s, in);
  if (in.engine == EngineKind::kDynamo) s.engine_command = dynamo_command(s, in);
  if (in.engine == EngineKind::kLmcache && s.offload && s.offload->recommended_gib() > 0) {
    // The connector form with LMCache's own size key works on every vLLM version.
    s.engine_command = cmds.legacy;
    s.engine_notes.push_back(LmcacheSizePerRank{s.offload->recommended_gib(), s.server.world_size()});
    s.engine_notes.push_back(LmcacheEnvironment{});
  }
}

}  // namespace kvb

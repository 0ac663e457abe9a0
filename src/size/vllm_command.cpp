#include "size/vllm_command.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/strings.hpp"

namespace kvb {
namespace {

// The vLLM flags that differ from vLLM's defaults, in the order an operator reads them.
std::vector<std::string> serve_flags(const Sizing& s, const SizingInputs& in) {
  std::vector<std::string> f;
  if (s.tp > 1) f.push_back(fmt::format("--tensor-parallel-size {}", s.tp));
  if (s.pp > 1) f.push_back(fmt::format("--pipeline-parallel-size {}", s.pp));
  const auto len = s.fits ? s.max_model_len : s.estimated_max_model_len;
  f.push_back(fmt::format("--max-model-len {}", len));
  if (in.kv_cache_memory_bytes) {
    // vLLM's engine argument is kv_cache_memory_bytes: the flag is --kv-cache-memory-bytes.
    f.push_back(fmt::format("--kv-cache-memory-bytes {}", *in.kv_cache_memory_bytes));
  } else {
    f.push_back(fmt::format("--gpu-memory-utilization {:.2f}", in.gpu_memory_utilization));
  }
  if (in.kv.kv_cache_dtype != "auto") f.push_back(fmt::format("--kv-cache-dtype {}", in.kv.kv_cache_dtype));
  if (in.kv.block_size != 0) f.push_back(fmt::format("--block-size {}", in.kv.block_size));
  if (in.kv.max_num_batched_tokens != 8192) {
    f.push_back(fmt::format("--max-num-batched-tokens {}", in.kv.max_num_batched_tokens));
  }
  if (in.max_num_seqs != 256) f.push_back(fmt::format("--max-num-seqs {}", in.max_num_seqs));
  if (in.quantization == Quantization::kFp8) f.push_back("--quantization fp8");
  if (!in.kv.hybrid_manager) f.push_back("--disable-hybrid-kv-cache-manager");
  return f;
}

std::string multiline(const std::string& head, const std::vector<std::string>& flags) {
  std::string out = head;
  for (const auto& f : flags) out += " \\\n    " + f;
  return out;
}

}  // namespace

VllmCommands vllm_commands(const Sizing& s, const SizingInputs& in) {
  VllmCommands c;
  auto flags = serve_flags(s, in);
  auto flag_form = flags;
  auto legacy_form = flags;
  const bool tier = s.offload && s.offload->recommended_gib > 0;  // 0: offloading does not pay
  if (tier) {
    flag_form.push_back(fmt::format("--kv-offloading-backend {}", to_string(in.offloading_backend)));
    flag_form.push_back(fmt::format("--kv-offloading-size {}", s.offload->recommended_gib));
    if (in.offloading_backend == OffloadingBackend::kLmcache) {
      // LMCache's connector; its local CPU backend takes its size per rank in GiB from the
      // environment (LMCache multiplies max_local_cpu_size by 1024**3).
      legacy_form.push_back("--kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'");
    } else {
      legacy_form.push_back(fmt::format("--kv-transfer-config '{{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":"
                                        "\"kv_both\",\"kv_connector_extra_config\":{{\"num_cpu_blocks\":{}}}}}'",
                                        s.offload->num_cpu_blocks));
    }
  }
  c.serve = multiline("vllm serve " + s.hf_id, flag_form);
  const bool lmcache = tier && in.offloading_backend == OffloadingBackend::kLmcache;
  const std::string legacy_env =
      lmcache ? fmt::format("LMCACHE_LOCAL_CPU=True LMCACHE_MAX_LOCAL_CPU_SIZE={:.1f} ", s.offload->lmcache_gib_per_rank)
              : std::string();
  c.legacy = multiline(legacy_env + "vllm serve " + s.hf_id, legacy_form);
  if (in.hw.vendor == GpuVendor::kAmd) {
    std::vector<std::string> docker = {"--device /dev/kfd --device /dev/dri --group-add video --ipc=host",
                                       "--security-opt seccomp=unconfined -p 8000:8000",
                                       "-v ~/.cache/huggingface:/root/.cache/huggingface",
                                       "vllm/vllm-openai-rocm:latest", "--model " + s.hf_id};
    docker.insert(docker.end(), flag_form.begin(), flag_form.end());
    c.rocm_docker = multiline("docker run --rm", docker);
  }
  c.version_note =
      lmcache ? "targets vLLM with the --kv-offloading-size flag (0.12 or newer, soft); the legacy form runs LMCache "
                "through its connector, sized per rank by LMCACHE_MAX_LOCAL_CPU_SIZE (GiB)"
              : "targets vLLM with the --kv-offloading-size flag (0.12 or newer, soft); vLLM 0.11.x takes the legacy "
                "--kv-transfer-config form, whose num_cpu_blocks counts blocks, not GiB";
  return c;
}

namespace {

// SGLang with HiCache: its host pool is --hicache-size GB (10^9) on each rank
// (python/sglang/srt/mem_cache/memory_pool_host.py: size = hicache_size * 1e9 // size_per_token,
// one pool per TP rank), and must be larger than the device pool (asserted there).
std::string sglang_command(Sizing& s, const SizingInputs& in) {
  std::vector<std::string> f;
  if (s.tp > 1) f.push_back(fmt::format("--tp-size {}", s.tp));
  if (s.pp > 1) f.push_back(fmt::format("--pp-size {}", s.pp));
  f.push_back(fmt::format("--context-length {}", s.fits ? s.max_model_len : s.estimated_max_model_len));
  if (in.kv.kv_cache_dtype.rfind("fp8", 0) == 0) f.push_back("--kv-cache-dtype fp8_e4m3");
  if (in.quantization == Quantization::kFp8) f.push_back("--quantization fp8");
  const int gib = s.offload ? s.offload->recommended_gib : 0;
  s.engine_notes.clear();
  if (gib > 0) {
    const double device_gb = s.kv_gib_available * (1024.0 * 1024 * 1024) / 1e9;  // per rank
    const double wanted_gb = gib * (1024.0 * 1024 * 1024) / 1e9 / s.world_size;
    double host_gb = std::ceil(wanted_gb);
    if (host_gb <= device_gb) {
      host_gb = std::floor(device_gb) + 1;
      s.engine_notes.push_back(fmt::format("raised to {:.0f} GB per rank: SGLang requires the host pool to exceed the "
                                           "device pool ({:.1f} GB per rank)",
                                           host_gb, device_gb));
    }
    s.hicache_size_gb_per_rank = host_gb;
    s.hicache_ratio = device_gb > 0 ? host_gb / device_gb : 0;
    f.push_back("--enable-hierarchical-cache");
    f.push_back(fmt::format("--hicache-size {:.0f}", host_gb));
    f.push_back("--hicache-mem-layout page_first");
    f.push_back("--hicache-io-backend kernel");
    f.push_back("--hicache-write-policy write_through");
    s.engine_notes.push_back(fmt::format("--hicache-size is GB (10^9) per rank: {} GiB across {} rank{} = {:.1f} GB per "
                                         "rank, rounded up (sglang/srt/mem_cache/memory_pool_host.py)",
                                         gib, s.world_size, s.world_size == 1 ? "" : "s", wanted_gb));
    s.engine_notes.push_back(fmt::format("the same as --hicache-ratio {:.2f} (host pool / device pool, {:.1f} GB per rank "
                                         "from vLLM's budget; SGLang's --mem-fraction-static gives a slightly different "
                                         "pool)",
                                         s.hicache_ratio, device_gb));
    s.engine_notes.push_back("layouts: page_first with the kernel I/O backend (SGLang's HiCache best practices); "
                             "layer_first is the default and suits --hicache-io-backend direct");
  }
  std::string out = "python -m sglang.launch_server --model-path " + s.hf_id;
  for (const auto& x : f) out += " \\\n    " + x;
  return out;
}

}  // namespace

void set_commands(Sizing& s, const SizingInputs& in) {
  s.engine = in.engine;
  if (!s.weights_fit) return;  // no command line to give: the server would fail to load
  const auto cmds = vllm_commands(s, in);
  s.vllm_command = cmds.serve;
  s.vllm_command_legacy = cmds.legacy;
  s.rocm_docker_command = cmds.rocm_docker;
  s.vllm_version_note = cmds.version_note;
  s.engine_command.clear();
  s.engine_notes.clear();
  if (in.engine == EngineKind::kSglang) s.engine_command = sglang_command(s, in);
  if (in.engine == EngineKind::kLmcache && s.offload && s.offload->recommended_gib > 0) {
    // The connector form with LMCache's own size key works on every vLLM version.
    s.engine_command = cmds.legacy;
    s.engine_notes.push_back(fmt::format("LMCACHE_MAX_LOCAL_CPU_SIZE is GiB per rank (LMCache multiplies it by 1024**3 "
                                         "in each worker): {} GiB / {} rank{}",
                                         s.offload->recommended_gib, s.world_size, s.world_size == 1 ? "" : "s"));
    s.engine_notes.push_back("set in the environment, it holds whether or not your vLLM passes --kv-offloading-size on "
                             "to LMCache (reported ignored with --kv-offloading-backend lmcache on newer vLLM; not "
                             "checked by kvbench)");
  }
}

}  // namespace kvb

#include "cli/server_flags.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "dma/transfer_case.hpp"

namespace kvb {

void add_parallelism_flags(CLI::App* app, ServerFlags& f) {
  f.app = app;
  app->add_option("--tensor-parallel-size,--tp", f.tp,
                  "TP ranks, or auto: the smallest configuration that fits one request (TP within a node, "
                  "then FP8 weights, then pipeline stages across nodes)");
  app->add_option("--pipeline-parallel-size,--pp", f.pp, "PP stages (vLLM's default 1)");
}

void add_server_flags(CLI::App* app, ServerFlags& f) {
  add_parallelism_flags(app, f);
  add_serve_flags(app, f);
}

CLI::Option* add_context_flag(CLI::App* app, std::string& text, const std::string& help) {
  return app->add_option("--max-model-len,--ctx", text,
                         "context length: 131072, 128k (x1000), 128K (x1024), 1M (" + help + ")");
}

std::int64_t parse_context_flag(const std::string& text) {
  return parse_token_count(text, "--max-model-len");
}

void add_serve_flags(CLI::App* app, ServerFlags& f) {
  f.app = app;
  add_context_flag(app, f.max_model_len, "default: the model's own");
  app->add_option("--gpu-memory-utilization", f.gpu_memory_utilization,
                  "share of GPU memory vLLM may use (vLLM's default 0.9)");
  app->add_option("--kv-cache-memory,--kv-cache-memory-bytes", f.kv_cache_memory,
                  "KV bytes per rank, replacing the budget (e.g. 3.81GiB); vLLM's --kv-cache-memory-bytes");
  app->add_option("--kv-cache-dtype", f.kv_cache_dtype,
                  "auto (the default), bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla");
  app->add_option("--block-size", f.block_size, "tokens per block (default: the attention backend's)");
  app->add_option("--max-num-batched-tokens", f.max_num_batched_tokens,
                  "tokens per scheduler step (vLLM's default: 8192 on GPUs of 70 GiB or more other "
                  "than the A100, else 2048)");
  app->add_option("--max-num-seqs", f.max_num_seqs,
                  "sequences per step (vLLM's default: 1024 on GPUs of 70 GiB or more other than the "
                  "A100, else 256)");
  app->add_option("--kv-offloading-size", f.kv_offloading_size,
                  "the CPU tier's size (GiB, all ranks); size evaluates it beside its own recommendation");
  app->add_option("--kv-offloading-backend", f.kv_offloading_backend, "native (the default) or lmcache");
  app->add_option("--link-method", f.link_method,
                  "how the tier copies, and which method of --link-profile to fit: ce (the default, vLLM's "
                  "native tier), ce-batch, kernel");
  app->add_option("--quantization", f.quantization, "weights: none (checkpoint dtype, the default) or fp8");
  app->add_option("--draft-layers", f.draft_layers, "extra KV layers of a draft model (EAGLE 1, MTP 1)");
  app->add_option("--vllm-version", f.vllm_version,
                  fmt::format("the vLLM release served (default {}): how the tier takes host memory "
                              "(docs/host-memory.md) and what it costs the engine (docs/accuracy.md)",
                              to_string(kNewestModelledVllm)));
  app->add_flag("--disable-hybrid-kv-cache-manager", f.disable_hybrid_manager,
                "size as vLLM does with the hybrid manager off");
}

bool pp_given(const ServerFlags& f) {
  const auto* pp = f.app != nullptr ? f.app->get_option_no_throw("--pp") : nullptr;
  return pp != nullptr && pp->count() > 0;
}

bool any_server_flag(const ServerFlags& f) {
  for (const auto* text :
       {&f.tp, &f.pp, &f.gpu_memory_utilization, &f.kv_cache_memory, &f.kv_cache_dtype, &f.block_size,
        &f.max_model_len, &f.max_num_batched_tokens, &f.max_num_seqs, &f.kv_offloading_size,
        &f.kv_offloading_backend, &f.link_method, &f.quantization, &f.draft_layers, &f.vllm_version}) {
    if (!text->empty()) return true;
  }
  return f.disable_hybrid_manager;
}

namespace {

void apply_parallelism(const ServerFlags& f, ServeSettings& v) {
  if (f.tp == "auto") {
    v.tensor_parallel_auto = true;
  } else if (!f.tp.empty()) {
    v.tensor_parallel_auto = false;
    v.tensor_parallel_size =
        static_cast<int>(parse_int_in(f.tp, "--tensor-parallel-size", 1, kMaxParallelRanks));
  }
  if (!f.pp.empty())
    v.pipeline_parallel_size =
        static_cast<int>(parse_int_in(f.pp, "--pipeline-parallel-size", 1, kMaxParallelRanks));
}

void apply_memory(const ServerFlags& f, ServeSettings& v) {
  if (!f.gpu_memory_utilization.empty())
    v.gpu_memory_utilization = parse_real_in(f.gpu_memory_utilization, "--gpu-memory-utilization", 0.0, 1.0);
  if (!f.kv_cache_memory.empty())
    v.kv_cache_memory = parse_bytes(f.kv_cache_memory, "--kv-cache-memory").bytes;
  if (!f.kv_cache_dtype.empty()) v.kv_cache_dtype = f.kv_cache_dtype;
  // vLLM's largest block is 256 tokens; hybrid models' larger pages are kvbench's to choose.
  if (!f.block_size.empty())
    v.block_size = static_cast<int>(parse_int_in(f.block_size, "--block-size", 1, 256));
  if (!f.max_model_len.empty()) v.max_model_len = parse_context_flag(f.max_model_len);
  if (!f.max_num_batched_tokens.empty())
    v.max_num_batched_tokens = parse_token_count(f.max_num_batched_tokens, "--max-num-batched-tokens");
  if (!f.max_num_seqs.empty())
    v.max_num_seqs = parse_positive_int(f.max_num_seqs, "--max-num-seqs", false, kMaxNumSeqs);
}

void apply_tier_and_weights(const ServerFlags& f, ServeSettings& v) {
  if (!f.kv_offloading_size.empty())
    v.kv_offloading_size = parse_gib_size(f.kv_offloading_size, "--kv-offloading-size");
  if (!f.kv_offloading_backend.empty())
    v.kv_offloading_backend = parse_offloading_backend(f.kv_offloading_backend, "--kv-offloading-backend");
  if (!f.link_method.empty()) {
    v.link_method = parse_method(f.link_method, "--link-method");
  }
  if (!f.quantization.empty()) v.quantization = parse_quantization(f.quantization, "--quantization");
  if (!f.draft_layers.empty())
    v.draft_layers = static_cast<int>(parse_int_in(f.draft_layers, "--draft-layers", 0, 16));
  if (f.disable_hybrid_manager) v.hybrid_kv_cache_manager = false;
  if (!f.vllm_version.empty()) v.vllm_version = parse_vllm_version(f.vllm_version, "--vllm-version");
}

}  // namespace

void apply_server_flags(const ServerFlags& f, ServeSettings& v) {
  apply_parallelism(f, v);
  apply_memory(f, v);
  apply_tier_and_weights(f, v);
}

}  // namespace kvb

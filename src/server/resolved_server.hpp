#pragma once
// The server a result was computed for, every default taken and every dtype decided: what vLLM
// would run, once resolved from the flags or a scenario, the model and the GPU (the batch
// defaults of vllm_serve_batch_defaults, the weights after --quantization, the attention
// backend's block size, the model's own max-model-len). Results and documents hold one by value
// instead of copying its fields; server/server_json writes and reads it for every document.
#include <cstdint>
#include <string>

#include "server/serve_settings.hpp"

namespace kvb {

struct ResolvedServer {
  std::string model;     // the catalog name (or the config.json's model)
  std::string hf_id;     // the Hugging Face id vLLM loads; empty where the document had none
  std::string hardware;  // the hardware table's name
  int tensor_parallel_size = 1;
  int pipeline_parallel_size = 1;
  int data_parallel_size = 1;  // engines, each with its own KV cache and CPU tier
  bool expert_parallel = false;
  std::int64_t max_model_len = 0;           // tokens
  std::int64_t max_num_batched_tokens = 0;  // given, or vLLM's default on this GPU
  std::int64_t max_num_seqs = 0;            // given, or vLLM's default on this GPU
  std::string weight_dtype;                 // after --quantization
  std::string kv_cache_dtype;               // "auto" resolved: the dtype the cache is held in
  int block_size = 16;                      // tokens per block, the backend's default resolved
  OffloadingBackend offloading_backend = OffloadingBackend::kNative;

  int world_size() const { return tensor_parallel_size * pipeline_parallel_size; }  // one engine's ranks
  bool operator==(const ResolvedServer&) const = default;
};

}  // namespace kvb

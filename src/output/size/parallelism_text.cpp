#include "output/size/parallelism_text.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

namespace kvb {

std::string parallelism_label(const Sizing& s) {
  const int dp = s.server.data_parallel_size, tp = s.server.tensor_parallel_size;
  const int pp = s.server.pipeline_parallel_size;
  if (dp <= 1 && !s.server.expert_parallel) return fmt::format("TP {}, PP {}", tp, pp);
  const std::string ep = s.server.expert_parallel ? fmt::format(", EP {}", dp * tp) : "";
  if (dp <= 1) return fmt::format("TP {}{}, PP {}", tp, ep, pp);
  return fmt::format("DP {} x TP {}{}, PP {}", dp, tp, ep, pp);
}

std::string tp_by_pp_label(const ResolvedServer& v) {
  const int tp = v.tensor_parallel_size;
  return v.pipeline_parallel_size > 1 ? fmt::format("{} x {}", tp, v.pipeline_parallel_size)
                                      : std::to_string(tp);
}

int server_gpus(const Sizing& s) { return s.server.world_size() * s.server.data_parallel_size; }

std::string data_parallel_tried_text(const DataParallelTried& d, std::int64_t tokens) {
  const auto why = d.mla ? fmt::format("TP {} keeps each MLA latent on all {} ranks", d.tp_found, d.tp_found)
                         : fmt::format("TP {} replicates each of the {} KV heads on {} ranks", d.tp_found,
                                       d.kv_heads, d.tp_found / d.kv_heads);
  const auto dp_pool = fmt::format(
      "DP {} x TP {} with expert parallelism (EP {}) on the same {} GPUs: {} engines "
      "of {} tokens each, {} in all (weights {:.1f} GiB per rank, against {:.1f})",
      d.dp, d.tp, d.dp * d.tp, d.tp_found, d.dp, format_count(d.engine_tokens),
      format_count(d.dp * d.engine_tokens), d.weights_gib, d.tp_weights_gib);
  const auto recipe =
      "vLLM's recipes run both (DeepSeek-V3 on 8 x H200: TP for low latency and low load, DP for high load); "
      "give --tp for the other; DP x EP is modelled (memory per rank, an all-to-all per MoE layer from the "
      "link's "
      "figures), not scored against a real vLLM run";
  if (d.chosen) {
    return fmt::format("parallelism: DP {} x EP chosen: {} ({} tokens of context); {}; {}", d.dp, why,
                       format_count(d.tp_tokens), dp_pool, recipe);
  }
  const auto reason =
      !d.engine_fits ? fmt::format("one engine does not hold a request of {} tokens", format_count(tokens))
                     : std::string("the engines hold no more distinct tokens");
  return fmt::format("parallelism: TP {} kept: {} ({} tokens); {}, but {}", d.tp_found, why,
                     format_count(d.tp_tokens), dp_pool, reason);
}

std::vector<std::string> engine_tier_lines(const Sizing& s) {
  if (s.server.data_parallel_size <= 1 || !s.offload) return {};
  const auto& o = *s.offload;
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "per engine: each of the {} DP engines has its own scheduler, GPU pool and CPU tier; vLLM splits "
      "--kv-offloading-size over one engine's TP x PP ranks, not over DP (vllm/config/kv_offloading.py, "
      "get_num_kv_ranks); DP x EP's step time is modelled, not scored against a real vLLM run",
      s.server.data_parallel_size));
  const double gib = o.given_gib.value_or(o.recommended_gib());
  out.push_back(fmt::format("host memory for the tier: {} engines x {:g} GiB = {:g} GiB in all{}",
                            s.server.data_parallel_size, gib, s.server.data_parallel_size * gib,
                            o.given_gib ? " (as given)" : " (as recommended)"));
  return out;
}

}  // namespace kvb

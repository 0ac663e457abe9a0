#include "size/reload_vs_recompute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"

namespace kvb {

double RecomputeModel::seconds(std::int64_t tokens) const {
  const double l = static_cast<double>(tokens);
  return std::max((linear_flops_per_token * l + quadratic_flops * l * l) / flops_per_second, weight_read_seconds);
}

double ReloadModel::seconds(std::int64_t tokens) const {
  const auto blocks = static_cast<double>((tokens + block_size - 1) / block_size);
  return blocks * (per_copy_seconds + block_bytes / link_bytes_per_second);
}

RecomputeModel recompute_model(const ModelSpec& m, const HardwareSpec& hw, int tp, int pp,
                               const std::string& weight_dtype, double efficiency) {
  RecomputeModel r;
  // Causal attention: half of the L x L score matrix, QK^T and AV at 2 FLOPs per MAC.
  const double per_pair = attention_macs_per_pair_layer(m);
  r.quadratic_flops = m.full_attention_layers() * per_pair;
  r.linear_flops_per_token = 2.0 * m.params_active_b * 1e9 + 2.0 * m.sliding_layers * per_pair * m.sliding_window;
  const bool fp8 = weight_dtype == "fp8" || weight_dtype == "mxfp4";
  r.flops_per_second = tp * (fp8 ? hw.fp8_tflops : hw.bf16_tflops) * 1e12 * efficiency;
  // Pipeline stages run one after another, so the whole model's weights are read once.
  const double weight_bytes_per_stage_rank = m.params_total_b * 1e9 * weight_bytes_per_param(weight_dtype) / tp / pp;
  r.weight_read_seconds = weight_bytes_per_stage_rank * pp / (hw.hbm_bandwidth_gbps * 1e9);
  return r;
}

ReloadVsRecompute compare_reload_recompute(const Sizing& s, const SizingInputs& in, double link_gbps,
                                           const std::string& link_source, double per_copy_seconds) {
  ReloadVsRecompute out;
  out.tokens = s.max_model_len;
  out.link_gbps = link_gbps;
  out.link_source = link_source;
  out.efficiency = in.prefill_efficiency;
  const bool fp8 = s.weight_dtype == "fp8" || s.weight_dtype == "mxfp4";
  out.peak_tflops = fp8 ? in.hw.fp8_tflops : in.hw.bf16_tflops;
  const auto rm = recompute_model(in.model, in.hw, s.tp, s.pp, s.weight_dtype, in.prefill_efficiency);
  ReloadModel load;
  load.block_size = s.layout.block_size;
  // Only the full-attention layers grow with context; the CPU tier holds those blocks.
  load.block_bytes = static_cast<double>(s.layout.kv_bytes_per_token()) * static_cast<double>(s.layout.block_size);
  load.link_bytes_per_second = link_gbps * 1e9;
  load.per_copy_seconds = per_copy_seconds;
  out.per_copy_us = load.per_copy_seconds * 1e6;
  out.reload_s = load.seconds(out.tokens);
  out.recompute_s = rm.seconds(out.tokens);
  // Break-even: the shortest length from which reloading stays faster, on a 2% geometric grid.
  std::optional<std::int64_t> from;
  for (double l = 1; l <= static_cast<double>(out.tokens) * 1.02; l *= 1.02) {
    const auto len = std::min(out.tokens, static_cast<std::int64_t>(std::ceil(l)));
    if (load.seconds(len) < rm.seconds(len)) {
      if (!from) from = len;
    } else {
      from.reset();
    }
  }
  out.break_even_tokens = from;
  const double ratio = out.recompute_s / std::max(out.reload_s, 1e-12);
  if (ratio >= 1.0) {
    out.verdict = fmt::format("reloading a {}-token request ({}) is {:.1f}x faster than recomputing it ({})",
                              format_count(out.tokens), format_seconds(out.reload_s), ratio,
                              format_seconds(out.recompute_s));
  } else {
    out.verdict = fmt::format("recomputing a {}-token request ({}) is {:.1f}x faster than reloading it ({}): "
                              "offloading does not pay at this length",
                              format_count(out.tokens), format_seconds(out.recompute_s), 1.0 / ratio,
                              format_seconds(out.reload_s));
  }
  return out;
}

}  // namespace kvb

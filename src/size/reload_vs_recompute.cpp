#include "size/reload_vs_recompute.hpp"

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "perf/step_time_model.hpp"
#include "perf/weight_rules.hpp"

namespace kvb {

ReloadVsRecompute compare_reload_recompute(const SizingFit& s, const SizingInputs& in) {
  ReloadVsRecompute out;
  out.tokens = s.server.max_model_len;
  out.link = in.link ? *in.link : link_profile_from_hardware(in.hw);
  out.link_given = in.link.has_value();
  const auto& h2d = out.link->h2d;  // a reload is host to device
  out.efficiency = in.calibration.compute_efficiency;
  out.peak_tflops = peak_tflops(in.hw, s.server.weight_dtype);
  // Only the full-attention layers grow with context; the CPU tier holds those blocks.
  const auto block_size = s.layout.block_size;
  const double block_bytes =
      static_cast<double>(s.layout.kv_bytes_per_token()) * static_cast<double>(block_size);
  out.link_gbps = h2d.gbps;
  out.per_copy_us = h2d.per_copy_s * 1e6;
  StepTimeModel steps(in.model, in.hw, static_cast<double>(s.layout.kv_bytes_per_token()),
                      s.server.tensor_parallel_size, s.server.weight_dtype, in.calibration);
  // DP engines: the prefill's experts run on every engine's ranks (perf/step_time_model.hpp).
  if (s.server.data_parallel_size > 1)
    steps.spread_experts(in.model, s.server.tensor_parallel_size * s.server.data_parallel_size,
                         s.server.expert_parallel);
  const auto chunk = std::max<std::int64_t>(1, s.server.max_num_batched_tokens);
  out.chunk_tokens = chunk;
  out.recompute_terms = steps.terms();
  // The simulator's load path: the same link curve at the calibration's load efficiency.
  const auto reload = [&](std::int64_t tokens) {
    return h2d.seconds((tokens + block_size - 1) / block_size, block_bytes) / in.calibration.load_efficiency;
  };
  const auto recompute = [&](std::int64_t tokens) { return steps.prefill_seconds(tokens, chunk); };
  out.reload_s = reload(out.tokens);
  out.recompute_s = recompute(out.tokens);
  // Break-even: the shortest length from which reloading stays faster, on a 2% geometric grid.
  std::optional<std::int64_t> from;
  for (double l = 1; l <= static_cast<double>(out.tokens) * 1.02; l *= 1.02) {
    const auto len = std::min(out.tokens, static_cast<std::int64_t>(std::ceil(l)));
    if (reload(len) < recompute(len)) {
      if (!from) from = len;
    } else {
      from.reset();
    }
  }
  out.break_even_tokens = from;
  return out;
}

}  // namespace kvb

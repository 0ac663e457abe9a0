#pragma once
// Is reloading a request's KV from the CPU tier faster than recomputing its prefill? Both sides
// come from src/perf/, the models the simulator uses, so `size` and `simulate` agree on a time:
// Reload: each rank moves its own blocks over its own host link, in parallel with the others,
//   the link curve's time for that many blocks of one rank's block bytes (t = t0 + bytes / B per
//   copy where the curve is the hardware table's).
// Recompute: the request's prefill alone on the roofline step model, in chunks of
//   max-num-batched-tokens (vLLM's chunked prefill), each chunk one engine step.
#include <string>

#include "perf/link_curve.hpp"
#include "size/sizing.hpp"

namespace kvb {

// Over the host-to-device curve of one rank's link: in.link (--link-profile), else the hardware
// table's.
ReloadVsRecompute compare_reload_recompute(const SizingFit& s, const SizingInputs& in);

}  // namespace kvb

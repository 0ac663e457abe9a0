#pragma once
// A discrete-event simulation of a vLLM v1-like server: continuous batching with chunked
// prefill, a paged GPU KV cache with prefix caching, recompute preemption, and vLLM's native
// CPU offloading tier with asynchronous stores and loads over a modelled host link.
#include <optional>

#include "sim/sim_result.hpp"
#include "sim/simulation_setup.hpp"

namespace kvb {

// Latency targets a request must meet to count toward goodput.
struct ServiceLevel {
  std::optional<double> ttft_s{};
  std::optional<double> tpot_s{};
};

struct SimOptions {
  bool check_invariants = false;  // audit the block pool and CPU tier after every step (slow)
  ServiceLevel slo{};             // counted in SimResult::slo_met_requests
  // How many independent simulations of a sweep (size's tier sizes x draws, simulate's sweep
  // points) run at once (core/worker_pool); one simulation never reads it.
  int jobs = 1;
};

// Deterministic: the same setup gives the same result, bit for bit. Throws CheckFailed when
// an invariant audit fails.
SimResult run_simulation(const SimulationSetup& setup, const SimOptions& options = {});

}  // namespace kvb

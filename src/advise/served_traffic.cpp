#include "advise/served_traffic.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

void require_requests_per_replica(std::int64_t requests, const Scenario& scenario) {
  const int replicas = scenario.fleet.replicas;
  if (replicas <= 1 || requests >= replicas) return;
  throw UsageError(fmt::format(
      "--replicas {}: the traffic ({} {}) holds {} requests, fewer than one per replica: a tier per replica "
      "would be sized on idle engines; expected at most {} replicas, or more requests",
      replicas, scenario.trace ? "--trace" : "--workload", scenario.name, requests, requests));
}

void require_served(const SimResult& none, const Scenario& scenario, std::int64_t max_model_len) {
  const std::string traffic = scenario.trace ? "--trace" : "--workload";
  // `requests` counts the requests admitted; those longer than max-model-len are refused beside them.
  require_requests_per_replica(none.requests + none.rejected_requests, scenario);
  if (none.finished > 0) return;
  if (none.rejected_requests > 0 && none.requests == 0) {
    throw UsageError(fmt::format(
        "{} {}: all {} requests are longer than max-model-len {} (vLLM refuses them): none served, no tier "
        "to size; expected a larger --max-model-len or shorter requests",
        traffic, scenario.name, none.rejected_requests, max_model_len));
  }
  if (none.timed_out >= none.requests && scenario.workload.client_timeout_s > 0) {
    throw UsageError(fmt::format(
        "workload.client-timeout {:g} s: the client gave up on all {} requests before any finished: none "
        "served, no tier to size; expected a client-timeout past the requests' latency (0: never)",
        scenario.workload.client_timeout_s, none.requests));
  }
  throw UsageError(fmt::format(
      "{} {}: no request finished ({} admitted, {} cut off, {} longer than max-model-len {}): no tier to "
      "size",
      traffic, scenario.name, none.requests, none.timed_out, none.rejected_requests, max_model_len));
}

}  // namespace kvb

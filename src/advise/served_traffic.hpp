#pragma once
// size --workload/--trace sizes a tier for what the server served: a traffic it served none of, or
// a fleet with more replicas than requests, has nothing to size, and is refused saying why.
#include <cstdint>

#include "sim/scenario.hpp"
#include "sim/sim_result.hpp"

namespace kvb {

// Throws UsageError (exit 2) naming --replicas when the traffic holds fewer requests than the fleet
// has replicas (checked before a workload's simulations, whose request count is known).
void require_requests_per_replica(std::int64_t requests, const Scenario& scenario);
// Throws UsageError (exit 2) naming the input when the run without a tier (`none`) served no
// request: all longer than max-model-len, all given up by the client, or fewer requests than
// replicas.
void require_served(const SimResult& none, const Scenario& scenario, std::int64_t max_model_len);

}  // namespace kvb

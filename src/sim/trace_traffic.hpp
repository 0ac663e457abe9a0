#pragma once
// A recorded trace as the simulator's traffic: each trace request becomes one simulated request
// whose prompt is the trace's blocks in order, so two requests share the simulator's 16-token
// blocks exactly where the trace says they share a prefix.
#include <cstdint>

#include "sim/request.hpp"
#include "trace/trace_request.hpp"

namespace kvb {

// `trace_block_tokens`: tokens per trace block id (--trace-block-tokens); `block_size`: the
// simulated KV block. The reply is content of its own (no trace records output reuse).
SimRequest simulated_request(const TraceRequest& t, std::int64_t id, std::int64_t trace_block_tokens,
                             int block_size);

}  // namespace kvb

#pragma once
// The simulator's entities: plain data. The scheduler decides what happens to them.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/sim_time.hpp"

namespace kvb {

enum class RequestState : std::uint8_t { kPending, kWaiting, kLoading, kRunning, kFinished };

// Laid out for a fleet, whose requests in flight do not stay in the core's caches between a
// replica's steps: what every step reads and writes (the scheduler, the pool, the step's end) in
// the first two cache lines, the rest after; a slot starts on a line.
struct alignas(64) SimRequest {
  // Line 1: the step's counts and states.
  std::int64_t id = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t computed = 0;       // tokens whose KV is in the GPU cache
  std::int64_t generated = 0;      // output tokens produced so far
  std::int64_t high_water = 0;     // most tokens ever computed (recompute accounting)
  std::int64_t cached_blocks = 0;  // leading blocks already registered in the prefix cache
  RequestState state = RequestState::kPending;
  bool timed_out = false;       // the client gave up before the reply ended; vLLM aborted it
  bool sent = false;            // its arrival has been handled: the client sent it
  bool prefix_checked = false;  // prefix hits looked up since the last (re)start
  int replica = 0;              // the engine the router sent it to
  // Line 2: its blocks, its hashes, its first token.
  // Hash of every full block of prompt + output, chained from the first token, so two requests
  // share block i's hash exactly when their first (i+1) x block_size tokens are the same.
  std::vector<std::uint64_t> block_hashes;
  std::vector<std::int32_t> blocks;  // GPU block ids, in token order
  SimTime first_token_time = kNoTime;
  // The first engine step that may schedule it (async scheduling: not the one already scheduled
  // when it arrived; sim/engine_loop.hpp).
  std::int64_t first_step = 0;

  std::int64_t session = 0;
  SimTime arrival{};
  SimTime finish_time = kNoTime;
  int turn = 0;
  int preemptions = 0;
  std::int64_t stored_blocks = 0;  // leading prompt blocks already offered to the CPU tier
  int pending_stores = 0;          // store jobs still reading this request's GPU blocks
  bool free_when_stored = false;   // finished while stores were in flight
  bool stored_any = false;         // a store job was ever submitted for it (finish-hold)
  SimTime stores_end{};            // when the last store job submitted for it ends
  // Stored blocks the connector has not reported yet (vLLM <= 0.20 reports a request's stores
  // when it has finished: sim/tier_costs.hpp, store-visibility).
  std::vector<std::uint64_t> unreported_stores;

  std::int64_t known_tokens() const { return prompt_tokens + generated; }
};
static_assert(offsetof(SimRequest, block_hashes) == 64 && offsetof(SimRequest, session) == 128,
              "a step's fields in the request's first two cache lines");

}  // namespace kvb

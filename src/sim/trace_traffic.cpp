#include "sim/trace_traffic.hpp"

#include <algorithm>
#include <vector>

#include "core/rng.hpp"
#include "sim/workload_generator.hpp"

namespace kvb {
namespace {

// Segment ids of trace content, apart from the generated workloads' tags (1..4).
constexpr std::uint64_t kTraceBlock = 5;
constexpr std::uint64_t kTraceOwn = 6;

}  // namespace

SimRequest simulated_request(const TraceRequest& t, std::int64_t id, std::int64_t trace_block_tokens,
                             int block_size) {
  std::vector<Segment> segments;
  segments.reserve(t.block_ids.size() + 2);
  std::int64_t covered = 0;
  for (const auto block : t.block_ids) {
    const auto tokens = std::min(trace_block_tokens, t.prompt_tokens - covered);
    if (tokens <= 0) break;
    segments.push_back({hash_mix(kTraceBlock, block), tokens});
    covered += tokens;
  }
  // Prompt tokens no block id covers (a format without ids): content of this request alone.
  if (covered < t.prompt_tokens)
    segments.push_back({hash_mix(kTraceOwn, 2 * static_cast<std::uint64_t>(id)), t.prompt_tokens - covered});
  SimRequest r;
  r.id = id;
  r.session = -1;  // a trace request has no later turns to schedule: the trace holds them
  // A trace's clock starts at its first request; one out of order (CSV) arrives at once.
  r.arrival = sim_time_at(std::max(0.0, t.arrival_s), "a trace arrival");
  r.prompt_tokens = t.prompt_tokens;
  // A recorded 0-token reply still costs the one step that produces the first token (vLLM's
  // max_tokens is at least 1).
  r.output_tokens = std::max<std::int64_t>(1, t.output_tokens);
  segments.push_back({hash_mix(kTraceOwn, 2 * static_cast<std::uint64_t>(id) + 1), r.output_tokens});
  r.block_hashes = block_hashes(segments, block_size);
  return r;
}

}  // namespace kvb

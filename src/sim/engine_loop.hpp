#pragma once
// How vLLM's engine-core loop paces a new request, per release.
#include <cstdint>

#include "catalog/vllm_host_memory.hpp"

namespace kvb {

// Async scheduling (on by default from vLLM 0.14.0, #27614; off before, where it was an
// experimental flag): the engine core schedules and launches step N+1 as soon as step N is on the
// GPU (vllm/v1/engine/core.py, step_with_batch_queue, a batch queue of 2), and new requests enter
// the waiting queue only between those schedule calls. A request that arrives while step N runs
// therefore starts in step N+2, not N+1: one more step in its time to first token. Its first token
// still leaves as soon as its prefill step ends, and an idle engine schedules it at once.
// (Read in vLLM main before the 0.15 cut and at 0.19.0; unchanged between them.)
inline constexpr VllmVersion kAsyncSchedulingDefaultFrom{0, 14, 0};

inline bool async_scheduling_by_default(const VllmVersion& v) { return !(v < kAsyncSchedulingDefaultFrom); }

// The full-prompt admission gate (--scheduler-reserve-full-isl, #37307, on by default from 0.19):
// a waiting request is admitted only when the free block queue holds its whole prompt, not just
// the first chunk, so chunked prefill no longer over-admits and preempts. Blocks the connector
// holds (a finished request's until its stores are read, a load's while it runs) are not free.
// (Read at the 0.19 cut: core/sched/scheduler.py 732-745, core/kv_cache_manager.py 218-255.)
inline constexpr VllmVersion kReserveFullPromptFrom{0, 19, 0};

inline bool reserve_full_prompt_by_default(const VllmVersion& v) { return !(v < kReserveFullPromptFrom); }

// One engine's loop: whether it schedules asynchronously, whether a step is running, and how many
// steps it has started.
struct EngineLoop {
  bool async_scheduling = false;
  bool busy = false;
  std::int64_t steps_started = 0;

  // The first step that can schedule a request the scheduler learns of now. Under async scheduling
  // the step after the running one (or after the one that just ended, whose output is being read:
  // `from_step_output`) was scheduled when that one started.
  std::int64_t next_schedulable_step(bool from_step_output) const {
    if (!async_scheduling) return steps_started;
    return busy || from_step_output ? steps_started + 1 : steps_started;
  }
};

}  // namespace kvb

#pragma once
// The simulator's clock: events ordered by (time, insertion sequence), so equal times pop in
// the order they were pushed and the same inputs give the same run, bit for bit.
#include <cstdint>
#include <queue>
#include <vector>

namespace kvb {

// kAdmit: a request reaches the scheduler, its per-request overhead after its arrival; kTimeout:
// the client gives up on it (workload client-timeout); kDiskWriteDone, kDiskReadDone: a secondary
// tier's write-through and a promotion's read (sim/secondary_tier.hpp).
enum class EventKind : std::uint8_t {
  kArrival,
  kAdmit,
  kStepDone,
  kLoadDone,
  kStoreDone,
  kTimeout,
  kClientStop,
  kDiskWriteDone,
  kDiskReadDone
};

struct Event {
  double time = 0;
  std::uint64_t seq = 0;
  std::int64_t id = 0;           // request, or transfer job
  std::int32_t replica = 0;      // the engine it concerns (sim/fleet_simulation.hpp)
  std::uint32_t generation = 0;  // kTimeout: which use of the request's slot it is for
  EventKind kind = EventKind::kArrival;
};

class EventQueue {
 public:
  void push(double time, EventKind kind, std::int64_t id, std::int32_t replica = 0,
            std::uint32_t generation = 0) {
    heap_.push(Event{time, next_seq_++, id, replica, generation, kind});
  }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace kvb

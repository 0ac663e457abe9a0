#pragma once
// The simulator's clock: events ordered by (time, insertion sequence), so equal times pop in
// the order they were pushed and the same inputs give the same run, bit for bit. Times are
// integer nanoseconds (sim/sim_time.hpp): two events are simultaneous exactly when they are.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/sim_time.hpp"

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
  SimTime time{};
  std::uint64_t seq = 0;
  std::int64_t id = 0;           // request, or transfer job
  std::int32_t replica = 0;      // the engine it concerns (sim/fleet_simulation.hpp)
  std::uint32_t generation = 0;  // kTimeout: which use of the request's slot it is for
  EventKind kind = EventKind::kArrival;
};

// A four-ary min-heap of 32-byte nodes (the kind packed under the sequence number): four children
// side by side halve the levels and cache lines a push or pop walks against std::priority_queue's
// binary heap of 40-byte events.
class EventHeap {
 public:
  struct Node {
    SimTime time;
    std::uint64_t seq_kind;  // sequence number << 8 | kind: sequence first when compared
    std::int64_t id;
    std::int32_t replica;
    std::uint32_t generation;
  };
  static_assert(sizeof(Node) == 32, "two nodes a cache line");
  static bool before(const Node& a, const Node& b) {
    return a.time != b.time ? a.time < b.time : a.seq_kind < b.seq_kind;
  }

  void push(const Node& n) {
    std::size_t i = heap_.size();
    heap_.push_back(n);
    while (i > 0) {  // sift up
      const std::size_t parent = (i - 1) / kArity;
      if (!before(n, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = n;
  }
  Node pop() {
    const Node top = heap_.front();
    const Node last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }
  const Node& top() const { return heap_.front(); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  static constexpr std::size_t kArity = 4;
  // Places `n` from the root down, each level's earliest child moving up.
  void sift_down(const Node& n) {
    const std::size_t size = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= size) break;
      std::size_t best = first;
      const std::size_t end = std::min(first + kArity, size);
      for (std::size_t c = first + 1; c < end; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], n)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = n;
  }

  std::vector<Node> heap_;
};

// Two heaps: the traffic's events (arrivals, timeouts, the client's stop), over a thousand pending
// at 16 replicas (a conversation thinking between turns holds one), and the engines' (steps,
// copies, admissions), a few per replica. Most events are engine steps, so most pushes and pops walk the
// small heap, whose depth grows with the replicas only. Popping the earlier of the two tops by
// (time, sequence), a total order over one sequence counter, gives one heap's order exactly.
class EventQueue {
 public:
  void push(SimTime time, EventKind kind, std::int64_t id, std::int32_t replica = 0,
            std::uint32_t generation = 0) {
    const EventHeap::Node n{time, (next_seq_++ << 8) | static_cast<std::uint64_t>(kind), id, replica,
                            generation};
    (is_traffic(kind) ? traffic_ : engines_).push(n);
  }
  Event pop() {
    const bool traffic =
        engines_.empty() || (!traffic_.empty() && EventHeap::before(traffic_.top(), engines_.top()));
    const auto top = (traffic ? traffic_ : engines_).pop();
    return Event{top.time,    top.seq_kind >> 8, top.id,
                 top.replica, top.generation,    static_cast<EventKind>(top.seq_kind & 0xff)};
  }
  bool empty() const { return traffic_.empty() && engines_.empty(); }
  std::size_t size() const { return traffic_.size() + engines_.size(); }

 private:
  static bool is_traffic(EventKind k) {
    return k == EventKind::kArrival || k == EventKind::kTimeout || k == EventKind::kClientStop;
  }
  EventHeap traffic_, engines_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace kvb

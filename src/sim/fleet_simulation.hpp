#pragma once
// The simulation's driver: the traffic (a workload's sessions or a streamed trace), the event
// clock, and a router in front of N engines (sim/serving_engine.hpp), each with its own GPU
// cache, CPU tier, scheduler and host link. One engine is a fleet of one.
#include <cstdint>
#include <memory>
#include <vector>

#include "fleet/router.hpp"
#include "fleet/sent_prefix_index.hpp"
#include "sim/serving_engine.hpp"
#include "sim/workload_generator.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {

// What the retired requests of one replica add up to; latencies are kept (8 bytes each) for
// exact percentiles.
struct RequestTally {
  std::int64_t requests = 0, prompt_tokens = 0, output_tokens = 0, preemptions = 0, slo_met = 0;  // answered
  std::int64_t timed_out = 0;  // given up by the client
  SimTime last_finish{};
  std::vector<double> ttft, tpot, e2e;  // seconds
};

class FleetSimulation final : public FinishListener {
 public:
  FleetSimulation(const SimulationSetup& setup, const SimOptions& options);
  SimResult run();
  void on_finished(SimRequest& r) override;
  void on_retired(SimRequest& r) override;

 private:
  std::int64_t take_slot();
  void dispatch(const Event& e);
  void start_session(SimTime at);
  void admit_next_trace_request();
  void on_arrival(std::int64_t id);
  void stop_client();
  int route(SimRequest& r);
  void route_by_published_state(SimRequest& r);
  SimResult summarize() const;
  void add_engine_metrics(SimResult& out, SimTime start, double span) const;
  void add_secondary(SimResult& out, const SecondaryTierCounts& c) const;
  std::vector<ReplicaResult> replica_results(double span) const;

  const SimulationSetup& setup_;
  SimOptions options_;
  FleetClock clock_;
  WorkloadGenerator generator_;
  std::unique_ptr<TraceReader> trace_;      // --trace: requests stream from the file, one read ahead
  std::int64_t rejected_ = 0;               // trace requests longer than max-model-len (vLLM answers 400)
  std::vector<Session> sessions_;           // a finished conversation's entry is emptied
  std::vector<std::int64_t> free_slots_;    // retired requests' ids, reused
  std::vector<std::uint32_t> generations_;  // per slot: how many requests it has retired
  std::vector<std::int64_t> retiring_;      // retired during this event: free after it
  std::vector<RequestTally> tallies_;       // per replica
  std::vector<std::unique_ptr<ServingEngine>> engines_;
  Router router_;
  std::vector<ReplicaState> states_;   // what the router knows, refreshed per request
  LoadIndex in_flight_;                // the router's own count per replica
  std::vector<SentPrefixIndex> sent_;  // prefix-approx: the router's record of what it sent where
  SimTime first_arrival_ = kNoTime;
  bool client_stopped_ = false;  // workload duration: the client has stopped sending
};

}  // namespace kvb

#pragma once
// Turns a WorkloadSpec into sessions and requests: arrival times, prompt content as segments
// (system prefix, document, earlier turns, new user text) and the block hashes of that content.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/rng.hpp"
#include "sim/request.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_time.hpp"

namespace kvb {

struct Segment {
  std::uint64_t id = 0;  // content identity: equal ids are equal tokens
  std::int64_t tokens = 0;
};

struct Session {
  std::int64_t id = 0;
  std::int64_t content_id = 0;  // whose user turns these are: an earlier session's for a repeat
  int turns = 1;
  std::vector<Segment> context;             // shared head: system prefix, then document
  std::vector<std::int64_t> user_tokens;    // per turn
  std::vector<std::int64_t> output_tokens;  // per turn
  std::vector<SimDuration> think;           // before each turn after the first
};

// Block hashes of the full blocks of `segments` (`block_size` tokens each).
std::vector<std::uint64_t> block_hashes(const std::vector<Segment>& segments, int block_size);

class WorkloadGenerator {
 public:
  // `origin` names the scenario in messages.
  WorkloadGenerator(const WorkloadSpec& spec, std::uint64_t seed, int block_size, std::int64_t max_model_len,
                    std::string origin = "scenario");
  // First turns clipped to max-model-len so far (workload key over-length: clip).
  std::int64_t clipped_prompts() const { return clipped_prompts_; }

  // The start time of the next session (open-loop processes), or nothing once the request
  // budget is spent. Closed loop: 0 (the simulator starts `users` sessions, then one per end).
  std::optional<SimTime> next_session_start();
  bool budget_left() const { return remaining_requests_ > 0; }
  // Draws a session's content; its turn count is capped by the remaining request budget.
  Session start_session();
  SimRequest make_request(const Session& s, int turn, SimTime arrival, std::int64_t request_id) const;

 private:
  WorkloadSpec spec_;
  int block_size_;
  std::int64_t max_model_len_;
  std::string origin_;
  std::int64_t clipped_prompts_ = 0;
  Rng arrivals_;
  Rng content_;
  SimTime clock_{};
  SimTime burst_start_{};
  std::int64_t remaining_requests_;
  std::int64_t sessions_started_ = 0;
  std::vector<std::int64_t> prefix_tokens_;    // per system prefix
  std::vector<std::int64_t> document_tokens_;  // per document
  std::vector<double> document_cdf_;           // Zipf popularity
  struct FirstTurn {
    std::vector<Segment> context;
    std::int64_t user_tokens = 0;
    std::int64_t content_id = 0;
  };
  std::vector<FirstTurn> first_turns_;  // what a repeat (repeat-share) may replay
  Session repeat_of(std::int64_t id, const FirstTurn& earlier);
  void draw_context(Session& s);  // the system prefix and document a new session shares
};

}  // namespace kvb

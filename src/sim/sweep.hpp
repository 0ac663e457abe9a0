#pragma once
// Runs a scenario over the cartesian product of sweep axes, and each point that offloads
// against the same point without a CPU tier (the headline: what offloading changes).
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perf/link_curve.hpp"
#include "perf/step_time_model.hpp"
#include "server/resolved_server.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_notes.hpp"
#include "sim/sim_result.hpp"
#include "sim/simulator.hpp"

namespace kvb {

struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> params;  // axis key -> value
  bool offloading = false;
  double kv_offloading_gib = 0;
  std::int64_t gpu_blocks = 0;
  std::int64_t cpu_blocks = 0;
  std::int64_t max_model_len = 0;
  SimResult result;
  SimResult baseline;  // the same point with no CPU tier (equal to result when it has none)
};

struct SweepRun {
  Scenario scenario;
  std::vector<SweepAxis> axes;
  ResolvedServer server;  // the first point's
  double cpu_block_bytes = 0;
  GpuBlocksOrigin gpu_blocks;    // worded by output/simulate/sim_notes_text
  LinkProfile link;              // worded by output/common/link_origin_text
  TimeModelTerms time_model;     // worded by output/common/time_model_text
  ExpectedError expected_error;  // against real vLLM servers (output/common/expected_error_text)
  std::vector<SimNote> notes;
  std::vector<SweepPoint> points;
  // A signal stopped the sweep: the points before it are kept; this names the one that was running.
  bool interrupted = false;
  std::string interrupted_during;
};

using SweepProgress = std::function<void(std::size_t done, std::size_t total)>;

SweepRun run_sweep(const Scenario& base, const std::vector<SweepAxis>& axes,
                   const std::optional<LinkProfile>& measured_link, const SimOptions& options,
                   const SweepProgress& progress = {});

}  // namespace kvb

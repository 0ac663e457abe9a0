#pragma once
// `kvbench calibrate --from-vllm`: fits the time model to the operator's own vLLM server. Each run
// is replayed request by request through the simulator (its arrivals and lengths), and the
// calibration's compute and memory efficiencies, step overhead and per-request overhead are moved
// (coordinate descent in log space) until TTFT, TPOT and E2E means match the measured ones. The
// rest of the calibration (attention, small-step GEMMs, the load path) stays the GPU's default.
#include <string>
#include <vector>

#include "calibrate/vllm_results.hpp"
#include "perf/calibration.hpp"
#include "sim/scenario.hpp"

namespace kvb {

struct VllmRunScore {
  std::string path;
  std::int64_t requests = 0;
  double measured_ttft = 0, measured_tpot = 0, measured_e2e = 0;     // means, s
  double simulated_ttft = 0, simulated_tpot = 0, simulated_e2e = 0;  // means, s
};

struct VllmFit {
  Calibration start;  // where the fit started: the GPU's default unless --start
  Calibration fitted;
  std::vector<VllmRunScore> with_start, with_fit;
  int evaluations = 0;
  std::vector<RunOrigin> origins;  // per run: its client, where its arrivals came from, what it left out
};

// `server`: the vLLM server the runs were measured on (model, hardware, flags; its workload is not
// used). Throws UsageError for runs the server cannot replay (a prompt past max-model-len, ...).
// The fit starts from the server's calibration (its `calibration`, else the GPU's default).
VllmFit fit_to_vllm_runs(const Scenario& server, const std::vector<VllmRun>& runs);

}  // namespace kvb

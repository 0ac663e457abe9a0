#include "calibrate/vllm_fit.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "core/temp_file.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"

namespace kvb {
namespace {

// A run as a trace file the simulator streams (kvbench's CSV trace: arrival, prompt, output),
// written through core's one temporary file (every write checked) and removed when the fit is done.
class TraceFile {
 public:
  explicit TraceFile(const VllmRun& run)
      : file_(TempFile::in_tmpdir("calibrate --from-vllm: the replay trace")) {
    std::string text = "arrival_s,prompt_tokens,output_tokens\n";
    for (const auto& r : run.requests)  // CSV rows, not prose
      text += fmt::format("{:.6f},{},{}\n", r.arrival_s, r.prompt_tokens, r.output_tokens);
    file_.write(text);
    file_.close();
  }
  const std::string& path() const { return file_.path(); }

 private:
  TempFile file_;
};

VllmRunScore measured_score(const VllmRun& run) {
  VllmRunScore s;
  s.path = run.path;
  s.requests = static_cast<std::int64_t>(run.requests.size());
  double tpot_n = 0;
  for (const auto& r : run.requests) {
    s.measured_ttft += r.ttft_s;
    s.measured_e2e += r.e2e_s;
    if (r.output_tokens > 1) {
      s.measured_tpot += (r.e2e_s - r.ttft_s) / static_cast<double>(r.output_tokens - 1);
      ++tpot_n;
    }
  }
  s.measured_ttft /= static_cast<double>(s.requests);
  s.measured_e2e /= static_cast<double>(s.requests);
  s.measured_tpot = tpot_n > 0 ? s.measured_tpot / tpot_n : 0;
  return s;
}

class Replayer {
 public:
  Replayer(const Scenario& server, const std::vector<VllmRun>& runs) : server_(server) {
    for (const auto& run : runs) {
      files_.push_back(std::make_unique<TraceFile>(run));
      measured_.push_back(measured_score(run));
    }
  }

  std::vector<VllmRunScore> scores(const Calibration& c) {
    ++evaluations_;
    std::vector<VllmRunScore> out;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      auto s = server_;
      s.calibration = c;
      s.trace = TraceInput{files_[i]->path(), TraceOptions{}};
      const auto r = run_simulation(prepare_simulation(s, std::nullopt));
      if (r.rejected_requests > 0) {
        throw UsageError(
            fmt::format("{}: {} requests are longer than the server's max-model-len; expected the "
                        "server's flags (--max-model-len)",
                        measured_[i].path, r.rejected_requests));
      }
      // The replay must be the whole file: a short one would fit the model to part of the run.
      if (r.requests + r.rejected_requests != measured_[i].requests) {
        throw UsageError(fmt::format("{}: the replay read {} of the file's {} requests; expected all of them",
                                     measured_[i].path, r.requests + r.rejected_requests,
                                     measured_[i].requests));
      }
      auto score = measured_[i];
      score.simulated_ttft = r.ttft_s.mean;
      score.simulated_tpot = r.tpot_s.mean;
      score.simulated_e2e = r.e2e_s.mean;
      out.push_back(score);
    }
    return out;
  }

  // Mean squared relative error of the TTFT, TPOT and E2E means over the runs.
  double cost(const Calibration& c) {
    double sum = 0;
    int n = 0;
    for (const auto& s : scores(c)) {
      for (const auto& [sim, real] :
           {std::pair{s.simulated_ttft, s.measured_ttft}, std::pair{s.simulated_tpot, s.measured_tpot},
            std::pair{s.simulated_e2e, s.measured_e2e}}) {
        if (real <= 0) continue;
        sum += std::pow((sim - real) / real, 2);
        ++n;
      }
    }
    return n > 0 ? sum / n : 0;
  }

  int evaluations() const { return evaluations_; }

 private:
  Scenario server_;
  std::vector<std::unique_ptr<TraceFile>> files_;
  std::vector<VllmRunScore> measured_;
  int evaluations_ = 0;
};

// The keys the fit moves, each with its physical range.
struct FitKey {
  double Calibration::*field;
  double lo, hi;
};
constexpr FitKey kKeys[] = {{&Calibration::compute_efficiency, kMinEfficiency, 1.0},
                            {&Calibration::memory_efficiency, kMinEfficiency, 1.0},
                            {&Calibration::step_overhead_s, 1e-6, 0.1},
                            {&Calibration::request_overhead_s, 1e-5, 1.0}};

}  // namespace

VllmFit fit_to_vllm_runs(const Scenario& server, const std::vector<VllmRun>& runs) {
  if (runs.empty()) throw UsageError("calibrate --from-vllm: expected at least one result file");
  Replayer replay(server, runs);
  VllmFit fit;
  auto probe = server;
  probe.trace.reset();
  fit.start = prepare_simulation(probe, std::nullopt).predictor.calibration();
  for (const auto& r : runs) fit.origins.push_back(r.origin);
  auto params = fit.start;
  params.request_overhead_s = std::max(params.request_overhead_s, 1e-3);  // a start the log steps can move
  double best = replay.cost(params);
  double step = 0.3;
  while (step >= 0.01 && replay.evaluations() < 400) {
    // Every key and direction is tried, and the best move taken: taking the first that helps
    // wanders along the directions one run cannot tell apart.
    auto best_trial = params;
    bool moved = false;
    for (const auto& key : kKeys) {
      // One run is one load level: its decode steps' fixed cost and their HBM rate move TPOT the
      // same way there and cannot be told apart, so the step overhead keeps the start's value.
      if (runs.size() == 1 && key.field == &Calibration::step_overhead_s) continue;
      for (const double direction : {1.0, -1.0}) {
        auto trial = params;
        trial.*key.field = std::clamp(params.*key.field * std::exp(direction * step), key.lo, key.hi);
        const double c = replay.cost(trial);
        if (c < best) {
          best = c;
          best_trial = trial;
          moved = true;
        }
      }
    }
    if (moved) {
      params = best_trial;
    } else {
      step /= 2;
    }
  }
  params.origin = {};
  params.origin.from = CalibrationFrom::kFromVllm;
  params.origin.runs = runs.size();
  params.scored.clear();
  fit.fitted = params;
  fit.with_fit = replay.scores(fit.fitted);
  fit.with_start = replay.scores(fit.start);
  fit.evaluations = replay.evaluations();
  return fit;
}

}  // namespace kvb

#include "sim/sweep.hpp"

#include <map>

#include "core/interrupt.hpp"
#include "sim/simulation_setup.hpp"

namespace kvb {
namespace {

constexpr const char* kOffloadKey = "kv-offloading-size";

std::vector<std::vector<std::pair<std::string, std::string>>> product(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::pair<std::string, std::string>>> out{{}};
  for (const auto& a : axes) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& prefix : out) {
      for (const auto& v : a.values) {
        auto p = prefix;
        p.emplace_back(a.key, v);
        next.push_back(std::move(p));
      }
    }
    out = std::move(next);
  }
  return out;
}

Scenario apply(const Scenario& base, const std::vector<std::pair<std::string, std::string>>& params) {
  Scenario s = base;
  for (const auto& [k, v] : params) s = with_override(s, k, v, "--sweep");
  return s;
}

// The point's run and the run without a CPU tier it is compared with (one per other parameters).
void simulate_point(SweepPoint& p, const Scenario& scenario, const SimulationSetup& setup,
                    const std::optional<LinkProfile>& measured_link, const SimOptions& options,
                    std::map<std::string, SimResult>& baselines) {
  p.result = run_simulation(setup, options);
  if (!p.offloading) {
    p.baseline = p.result;
  } else {
    std::string key;
    for (const auto& [k, v] : p.params) {
      if (k != kOffloadKey) key += k + "=" + v + ";";
    }
    auto it = baselines.find(key);
    if (it == baselines.end()) {
      const auto off = with_override(scenario, kOffloadKey, "null", "--sweep");
      it = baselines.emplace(key, run_simulation(prepare_simulation(off, measured_link), options)).first;
    }
    p.baseline = it->second;
  }
}

std::string describe_point(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out.empty() ? "the scenario's run" : out;
}

}  // namespace

SweepRun run_sweep(const Scenario& base, const std::vector<SweepAxis>& axes,
                   const std::optional<LinkProfile>& measured_link, const SimOptions& options,
                   const SweepProgress& progress) {
  SweepRun run;
  run.scenario = base;
  run.axes = axes;
  const auto combos = product(axes);
  // Resolve and size every point first, so a bad value or an impossible configuration at any
  // point fails before any time is spent simulating.
  std::vector<Scenario> scenarios;
  std::vector<SimulationSetup> setups;
  for (const auto& c : combos) {
    scenarios.push_back(apply(base, c));
    setups.push_back(prepare_simulation(scenarios.back(), measured_link));
  }
  std::map<std::string, SimResult> baselines;  // by the point's parameters other than the CPU tier
  std::size_t done = 0;
  for (std::size_t i = 0; i < combos.size(); ++i) {
    const auto& setup = setups[i];
    if (i == 0) {
      run.model = setup.model.name;
      run.hardware = setup.hw.name;
      run.tp = setup.scenario.server.tensor_parallel_size;
      run.weight_dtype = setup.weight_dtype;
      run.kv_dtype = setup.layout.kv_dtype;
      run.block_size = setup.block_size;
      run.cpu_block_bytes = setup.cpu_block_bytes;
      run.gpu_blocks = setup.gpu_blocks_origin;
      run.link = setup.link;
      run.time_model = setup.predictor.terms();
      run.expected_error = expected_error_for(setup);
      run.notes = setup.notes;
    }
    SweepPoint p;
    p.params = combos[i];
    p.offloading = setup.offloading;
    p.kv_offloading_gib = setup.scenario.server.kv_offloading_size.value_or(0);
    p.gpu_blocks = setup.gpu_blocks;
    p.cpu_blocks = setup.cpu_blocks;
    p.max_model_len = setup.max_model_len;
    try {
      simulate_point(p, scenarios[i], setup, measured_link, options, baselines);
    } catch (const Interrupted&) {
      run.interrupted = true;
      run.interrupted_during = describe_point(p.params);
      break;
    }
    run.points.push_back(std::move(p));
    if (progress) progress(++done, combos.size());
  }
  return run;
}

}  // namespace kvb

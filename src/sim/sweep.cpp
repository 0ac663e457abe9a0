#include "sim/sweep.hpp"

#include <algorithm>
#include <mutex>

#include "core/interrupt.hpp"
#include "core/worker_pool.hpp"
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

// The key of the run without a CPU tier an offloading point is compared with: its parameters
// other than the CPU tier and the secondary tier behind it.
std::string baseline_key(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string key;
  for (const auto& [k, v] : params) {
    if (k != kOffloadKey && k.rfind("secondary-", 0) != 0) key += k + "=" + v + ";";
  }
  return key;
}

// The point without its tiers: no CPU tier, and so no secondary tier cascading from it; a tier on
// files is none either (its medium back to the default).
Scenario without_tiers(const Scenario& s) {
  auto none = with_override(s, kOffloadKey, "null", "--sweep");
  if (s.server.secondary_tier_size) none = with_override(none, "secondary-tier-size", "null", "--sweep");
  if (s.server.kv_offloading_medium != OffloadMedium::kCpu)
    none = with_override(none, "kv-offloading-medium", "cpu", "--sweep");
  return none;
}

// The distinct baselines the offloading points need, each as the first such point's scenario
// without its CPU tier, in the points' order.
std::vector<std::pair<std::string, Scenario>> baselines_needed(
    const std::vector<std::vector<std::pair<std::string, std::string>>>& combos,
    const std::vector<Scenario>& scenarios, const std::vector<SimulationSetup>& setups) {
  std::vector<std::pair<std::string, Scenario>> out;
  for (std::size_t i = 0; i < combos.size(); ++i) {
    if (!setups[i].offloading) continue;
    auto key = baseline_key(combos[i]);
    const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& b) { return b.first == key; });
    if (!seen) out.emplace_back(std::move(key), without_tiers(scenarios[i]));
  }
  return out;
}

std::string describe_point(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out.empty() ? "the scenario's run" : out;
}

// The tasks (points 0..n-1, then baselines n..) in the order they start: each point after the
// baseline it is compared with.
std::vector<std::size_t> task_order(
    const std::vector<std::vector<std::pair<std::string, std::string>>>& combos,
    const std::vector<SimulationSetup>& setups,
    const std::vector<std::pair<std::string, Scenario>>& baselines) {
  std::vector<std::size_t> order;
  std::vector<char> scheduled(baselines.size(), 0);
  for (std::size_t i = 0; i < combos.size(); ++i) {
    if (setups[i].offloading) {
      const auto key = baseline_key(combos[i]);
      for (std::size_t b = 0; b < baselines.size(); ++b) {
        if (baselines[b].first != key || scheduled[b]) continue;
        scheduled[b] = 1;
        order.push_back(combos.size() + b);
      }
    }
    order.push_back(i);
  }
  return order;
}

// What every point shares: the first point's server, link, time model and expected error.
void describe_run(SweepRun& run, const SimulationSetup& setup) {
  run.server = setup.server;
  run.cpu_block_bytes = setup.cpu_block_bytes;
  run.gpu_blocks = setup.gpu_blocks_origin;
  run.link = setup.link;
  run.time_model = setup.predictor.terms();
  run.expected_error = expected_error_for(setup);
  run.notes = setup.notes;
}

SweepPoint new_point(const std::vector<std::pair<std::string, std::string>>& params,
                     const SimulationSetup& setup) {
  SweepPoint p;
  p.params = params;
  p.offloading = setup.offloading;
  p.kv_offloading_gib = setup.scenario.server.kv_offloading_size.value_or(0);
  p.gpu_blocks = setup.gpu_blocks;
  p.cpu_blocks = setup.cpu_blocks;
  p.max_model_len = setup.server.max_model_len;
  return p;
}

// The points in order, each with its result and its baseline's, up to the first a signal left
// unfinished (the run then says where it stopped); any other failure is rethrown.
void collect_points(SweepRun& run,
                    const std::vector<std::vector<std::pair<std::string, std::string>>>& combos,
                    const std::vector<SimulationSetup>& setups,
                    const std::vector<std::pair<std::string, Scenario>>& baselines,
                    const std::vector<SimResult>& results, const IndexedRun& outcome) {
  for (std::size_t i = 0; i < combos.size(); ++i) {
    SweepPoint p = new_point(combos[i], setups[i]);
    std::size_t base_task = i;
    if (p.offloading) {
      const auto key = baseline_key(combos[i]);
      const auto b =
          std::find_if(baselines.begin(), baselines.end(), [&](const auto& x) { return x.first == key; });
      base_task = combos.size() + static_cast<std::size_t>(b - baselines.begin());
    }
    if (!outcome.finished[i] || !outcome.finished[base_task]) {
      try {
        if (outcome.error) std::rethrow_exception(outcome.error);
      } catch (const Interrupted&) {
        run.interrupted = true;
        run.interrupted_during = describe_point(p.params);
        return;
      }
    }
    p.result = results[i];
    p.baseline = results[base_task];
    run.points.push_back(std::move(p));
  }
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
  if (!combos.empty()) describe_run(run, setups.front());
  // Every point and every baseline is an independent simulation: options.jobs run at once, each
  // result kept by its index, so the sweep is the same at any job count.
  const auto baselines = baselines_needed(combos, scenarios, setups);
  std::vector<SimResult> results(combos.size() + baselines.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  // Each baseline is scheduled just before the first point that needs it, so that a signal keeps
  // the leading points whole.
  const auto order = task_order(combos, setups, baselines);
  auto outcome = run_indexed(order.size(), options.jobs, [&](std::size_t position) {
    const std::size_t task = order[position];
    if (task < combos.size()) {
      results[task] = run_simulation(setups[task], options);
      if (!progress) return;
      const std::lock_guard lock(progress_mutex);
      progress(++done, combos.size());
    } else {
      const auto& b = baselines[task - combos.size()];
      results[task] = run_simulation(prepare_simulation(b.second, measured_link), options);
    }
  });
  std::vector<char> finished(order.size(), 0);
  for (std::size_t position = 0; position < order.size(); ++position) {
    finished[order[position]] = outcome.finished[position];
  }
  outcome.finished = std::move(finished);  // by task, as the results are
  collect_points(run, combos, setups, baselines, results, outcome);
  return run;
}

}  // namespace kvb

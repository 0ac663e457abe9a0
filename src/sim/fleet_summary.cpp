// The run's figures: request latencies and tokens from the requests, engine counters summed over
// the replicas (link and KV occupancy as the replicas' mean), and each replica's own figures.
#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/percentile.hpp"
#include "sim/fleet_simulation.hpp"

namespace kvb {
namespace {

LatencySummary summarize_latency(std::vector<double> v) {
  LatencySummary s;
  s.count = static_cast<std::int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) { return percentile_sorted(v, q); };
  s.min = v.front();
  s.max = v.back();
  s.p50 = at(0.50);
  s.p90 = at(0.90);
  s.p99 = at(0.99);
  double sum = 0;
  for (const double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// 50 time bins, each the time-weighted mean of the step function the (time, used blocks) trace
// describes, as a share of the pool.
std::vector<std::pair<double, double>> binned_occupancy(const OccupancyTrace& trace, SimTime start,
                                                        double span, double blocks) {
  constexpr int kBins = 50;
  const double width = span / kBins;
  std::vector<double> acc(kBins, 0.0);
  for (std::size_t i = 0; i + 1 < trace.size(); ++i) {
    const double a = to_seconds(trace[i].first - start);
    const double b = to_seconds(trace[i + 1].first - start);
    const double used = trace[i].second;
    for (int k = std::max(0, static_cast<int>(a / width)); k < kBins && k * width < b; ++k) {
      const double lo = std::max(a, k * width);
      const double hi = std::min(b, (k + 1) * width);
      if (hi > lo) acc[static_cast<std::size_t>(k)] += used * (hi - lo);
    }
  }
  std::vector<std::pair<double, double>> out;
  for (int k = 0; k < kBins; ++k)
    out.emplace_back(k * width, acc[static_cast<std::size_t>(k)] / width / blocks);
  return out;
}

// "pending 0, waiting 3, loading 0, running 1; they hold 12 GPU blocks"
// Part of the CheckFailed error below: where the unfinished requests were left.
std::string describe_unfinished(const std::deque<SimRequest>& requests) {
  std::int64_t by_state[5] = {};
  std::int64_t held = 0;
  for (const auto& r : requests) {
    if (r.state == RequestState::kFinished) continue;
    ++by_state[static_cast<int>(r.state)];
    held += static_cast<std::int64_t>(r.blocks.size());
  }
  return fmt::format("pending {}, waiting {}, loading {}, running {}; they hold {} GPU blocks", by_state[0],
                     by_state[1], by_state[2], by_state[3], held);
}

double blocks_of(const EngineMetrics& m) {
  return static_cast<double>(std::max<std::int64_t>(1, m.gpu_blocks));
}

}  // namespace

SimResult FleetSimulation::summarize() const {
  std::int64_t unfinished = 0;
  for (const auto& r : clock_.requests) unfinished += r.state != RequestState::kFinished ? 1 : 0;
  SimResult out;
  std::vector<double> ttft, tpot, e2e;
  // No arrival at all: a run of nothing, from 0 to 0.
  const SimTime start = first_arrival_ == kNoTime ? SimTime{} : first_arrival_;
  SimTime last_finish = start;
  for (const auto& t : tallies_) {
    out.requests += t.requests + t.timed_out;
    out.finished += t.requests;
    out.timed_out += t.timed_out;
    out.prompt_tokens += t.prompt_tokens;
    out.output_tokens += t.output_tokens;
    out.preemptions += t.preemptions;
    out.slo_met_requests += t.slo_met;
    last_finish = std::max(last_finish, t.last_finish);
    ttft.insert(ttft.end(), t.ttft.begin(), t.ttft.end());
    tpot.insert(tpot.end(), t.tpot.begin(), t.tpot.end());
    e2e.insert(e2e.end(), t.e2e.begin(), t.e2e.end());
  }
  if (unfinished > 0) {
    // Say where they stuck: a deadlock in the scheduler shows as waiting requests with the engine idle.
    std::int64_t free = 0, blocks = 0;
    for (const auto& e : engines_) {
      free += e->free_blocks();
      blocks += e->gpu_blocks();
    }
    throw CheckFailed(fmt::format("simulation ended with {} of {} requests unfinished ({}, {} of {} free)",
                                  unfinished, out.requests + unfinished, describe_unfinished(clock_.requests),
                                  free, blocks));
  }
  out.makespan_s = to_seconds(last_finish - start);
  const double span = out.makespan_s > 0 ? out.makespan_s : 1.0;
  out.prompt_tokens_per_s = static_cast<double>(out.prompt_tokens) / span;
  out.output_tokens_per_s = static_cast<double>(out.output_tokens) / span;
  out.ttft_s = summarize_latency(std::move(ttft));
  out.tpot_s = summarize_latency(std::move(tpot));
  out.e2e_s = summarize_latency(std::move(e2e));
  out.clipped_prompts = generator_.clipped_prompts();
  out.rejected_requests = rejected_;
  add_engine_metrics(out, start, span);
  out.fleet = setup_.scenario.fleet;
  if (engines_.size() > 1) out.replicas = replica_results(span);
  return out;
}

void FleetSimulation::add_engine_metrics(SimResult& out, SimTime start, double span) const {
  const auto n = static_cast<double>(engines_.size());
  std::vector<std::pair<double, double>> occupancy;
  for (const auto& engine : engines_) {
    const auto m = engine->metrics();
    out.steps += m.steps;
    out.engine_busy_s += m.busy_s;
    out.scheduled_tokens += m.scheduled_tokens;
    out.recomputed_tokens += m.recomputed_tokens;
    out.gpu_hit_tokens += m.gpu_hit_tokens;
    out.cpu_hit_tokens += m.cpu_hit_tokens;
    out.loads += m.loads;
    out.stores += m.stores;
    out.h2d_bytes += m.h2d_bytes;
    out.d2h_bytes += m.d2h_bytes;
    out.h2d_utilization += m.h2d_busy_s / span / n;
    out.d2h_utilization += m.d2h_busy_s / span / n;
    out.gpu_evictions += m.gpu_evictions;
    out.cpu_evictions += m.cpu_evictions;
    out.cpu_tier_peak_blocks += m.cpu_peak_blocks;
    out.kv_occupancy_mean += m.occupancy_integral / span / blocks_of(m) / n;
    out.kv_occupancy_peak = std::max(out.kv_occupancy_peak, m.occupancy_peak / blocks_of(m));
    const auto bins = binned_occupancy(m.occupancy_trace, start, span, blocks_of(m));
    if (occupancy.empty()) occupancy.assign(bins.size(), {0.0, 0.0});
    for (std::size_t k = 0; k < bins.size(); ++k) {
      occupancy[k].first = bins[k].first;
      occupancy[k].second += bins[k].second / n;
    }
    for (std::size_t i = 0; i < m.tier_cost_s.size(); ++i) out.tier_cost_s[i] += m.tier_cost_s[i];
    if (m.secondary) add_secondary(out, *m.secondary);
  }
  out.kv_occupancy = std::move(occupancy);
  const double prompts = std::max<double>(1.0, static_cast<double>(out.prompt_tokens));
  out.gpu_hit_rate = static_cast<double>(out.gpu_hit_tokens) / prompts;
  out.cpu_hit_rate = static_cast<double>(out.cpu_hit_tokens) / prompts;
  if (out.secondary) out.secondary->hit_rate = static_cast<double>(out.secondary->hit_tokens) / prompts;
}

void FleetSimulation::add_secondary(SimResult& out, const SecondaryTierCounts& c) const {
  if (!out.secondary) {
    const auto& f = *setup_.secondary;
    out.secondary = SecondaryTierResult{.capacity_blocks = f.blocks,
                                        .read_gbps = f.read_bytes_per_s / 1e9,
                                        .write_gbps = f.write_bytes_per_s / 1e9,
                                        .latency_us = f.latency_s * 1e6,
                                        .rates_stated = f.stated};
  }
  auto& s = *out.secondary;
  s.hit_tokens += c.hit_tokens;
  s.blocks_written += c.blocks_written;
  s.blocks_read += c.blocks_read;
  s.bytes_written += c.bytes_written;
  s.bytes_read += c.bytes_read;
  s.write_busy_s += c.write_busy_s;
  s.read_busy_s += c.read_busy_s;
  s.peak_blocks += c.peak_blocks;
  s.evictions += c.evictions;
}

std::vector<ReplicaResult> FleetSimulation::replica_results(double span) const {
  std::vector<ReplicaResult> out(engines_.size());
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    const auto& t = tallies_[i];
    const auto m = engines_[i]->metrics();
    auto& rep = out[i];
    rep.requests = t.requests;
    rep.prompt_tokens = t.prompt_tokens;
    rep.output_tokens = t.output_tokens;
    rep.preemptions = t.preemptions;
    rep.ttft_s = summarize_latency(t.ttft);
    const double prompts = std::max<double>(1.0, static_cast<double>(rep.prompt_tokens));
    rep.gpu_hit_rate = static_cast<double>(m.gpu_hit_tokens) / prompts;
    rep.cpu_hit_rate = static_cast<double>(m.cpu_hit_tokens) / prompts;
    rep.cpu_tier_peak_blocks = m.cpu_peak_blocks;
    rep.kv_occupancy_mean = m.occupancy_integral / span / blocks_of(m);
    rep.engine_busy_s = m.busy_s;
  }
  return out;
}

SimResult run_simulation(const SimulationSetup& setup, const SimOptions& options) {
  FleetSimulation fleet(setup, options);
  return fleet.run();
}

}  // namespace kvb

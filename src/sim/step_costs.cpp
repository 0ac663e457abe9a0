// What an enabled CPU tier adds to an engine step and to a copy, mechanism by mechanism
// (sim/tier_costs.hpp has each mechanism's source and releases). Without a tier, nothing.
#include <algorithm>

#include "sim/serving_engine.hpp"
#include "sim/tier_costs.hpp"

namespace kvb {

double ServingEngine::tier_step_cost(const StepWork& w, double step) {
  if (!tier_ || tier_->capacity() == 0) return 0;
  // The share of this step during which the tier's copies hold the link.
  const SimTime busy_until = std::max(transfers_.h2d.free_at(), transfers_.d2h.free_at());
  const double overlap = step > 0 ? std::clamp(to_seconds(busy_until - clock_.now) / step, 0.0, 1.0) : 0.0;
  std::array<double, kTierCostCount> add{};
  const auto at = [&](TierCost c) -> double& { return add[static_cast<std::size_t>(c)]; };
  const double fabric = setup_.fabric_shares_host_link ? setup_.predictor.all_reduce_bandwidth_seconds(w) : 0;
  // Two flows on one link each get half of it while both run: the all-reduce bytes that overlap a
  // copy take twice as long (NCCL shares the GPU's PCIe link with host copies: NVIDIA/nccl#1023).
  if (costs_.on(TierCost::kFabricSharing)) at(TierCost::kFabricSharing) = fabric * overlap;
  if (costs_.on(TierCost::kKernelSms) && setup_.scenario.server.link_method == Method::kKernel) {
    // The copy kernel takes SMs only while it runs: its duty cycle over the step, not the whole step.
    at(TierCost::kKernelSms) = step * (setup_.link.kernel_compute_slowdown - 1.0) * overlap;
  }
  if (costs_.on(TierCost::kLmcacheSync)) at(TierCost::kLmcacheSync) = costs_.lmcache_sync.load_s;
  // The forward pass after a preemption starts once the preempted request's stores have read its
  // blocks (worker handle_preemptions).
  if (costs_.on(TierCost::kPreemptFlush))
    at(TierCost::kPreemptFlush) = std::max(0.0, to_seconds(costs_.preempt_flush.until - clock_.now));
  costs_.preempt_flush.until = SimTime{};
  costs_.lmcache_sync.load_s = 0;
  if (costs_.on(TierCost::kConnectorCpu)) {
    const auto work = connector_work(setup_.scenario.server.vllm_version);
    const double cpu = costs_.connector_cpu.submit_s +
                       work.per_block_touched_s * static_cast<double>(costs_.connector_cpu.blocks_touched);
    // Under async scheduling (sim/engine_loop.hpp) the scheduler and the worker prepare this step,
    // connector work included, while the GPU runs the one before: it shows only where it outlasts
    // the step. Synchronous releases pay it whole, between the steps.
    at(TierCost::kConnectorCpu) = loop_.async_scheduling ? std::max(0.0, cpu - step) : cpu;
  }
  costs_.connector_cpu.submit_s = 0;
  costs_.connector_cpu.blocks_touched = 0;
  double total = 0;
  for (std::size_t i = 0; i < add.size(); ++i) {
    counters_.tier_cost_s[i] += add[i];
    total += add[i];
  }
  costs_.fabric_sharing.step_share =
      costs_.on(TierCost::kFabricSharing) && step + total > 0 ? fabric / (step + total) : 0;
  return total;
}

double ServingEngine::shared_link_seconds(double seconds) const {
  // While a step's all-reduces hold the link (a share f of the step), a copy runs at half rate.
  // Steps run back to back under load, so a copy submitted between two steps meets the next one.
  if (costs_.fabric_sharing.step_share <= 0) return seconds;
  return seconds / (1.0 - costs_.fabric_sharing.step_share / 2.0);
}

// The worker's CPU time to submit a job of `blocks` copies before the next forward pass: one call
// per block up to 0.19, one batched call from 0.20 (tier_costs.cpp).
double ServingEngine::copy_submission_seconds(std::int64_t blocks, double per_copy_s) const {
  if (!costs_.on(TierCost::kConnectorCpu)) return 0;
  const auto work = connector_work(setup_.scenario.server.vllm_version);
  return (work.one_call_per_block ? static_cast<double>(blocks) : 1.0) * per_copy_s;
}

// vLLM <= 0.20 marks a request's stored blocks ready for others once the request has finished and
// all its stores are done (store-visibility); later releases (and the mechanism off) at once.
void ServingEngine::report_stores(SimRequest& r) {
  if (r.unreported_stores.empty()) return;
  if (r.state == RequestState::kFinished && r.pending_stores == 0) {
    tier_->store_done(r.unreported_stores);
    r.unreported_stores = {};
  }
}

}  // namespace kvb

#include "trace/trace_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "core/interrupt.hpp"
#include "trace/fleet_routing.hpp"

namespace kvb {
namespace {

class LogHistogram {
 public:
  void add(double v) {
    const auto bin = static_cast<std::size_t>(std::floor(std::log2(v + 1) * kPerDoubling));
    if (counts_.size() <= bin) counts_.resize(bin + 1, 0);
    ++counts_[bin];
    ++n_;
    sum_ += v;
    max_ = std::max(max_, v);
  }
  // The bin's geometric middle, back in token units.
  double percentile(double q) const {
    if (n_ == 0) return 0;
    const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(n_)));
    std::int64_t seen = 0;
    for (std::size_t b = 0; b < counts_.size(); ++b) {
      seen += counts_[b];
      if (seen >= std::max<std::int64_t>(rank, 1))
        return std::min(max_, std::exp2((static_cast<double>(b) + 0.5) / kPerDoubling) - 1);
    }
    return max_;
  }
  LengthSummary summary() const {
    return {n_ > 0 ? sum_ / static_cast<double>(n_) : 0, percentile(0.5), percentile(0.9), percentile(0.99),
            max_};
  }

 private:
  static constexpr double kPerDoubling = 64;
  std::vector<std::int64_t> counts_;
  std::int64_t n_ = 0;
  double sum_ = 0, max_ = 0;
};

// Each replica's curve at the single cache's capacities, and the fleet's at each (every replica
// with a cache that large), weighted by the prompt tokens each replica was sent.
void add_replica_curves(TraceAnalysis& a, const std::vector<PrefixMissRatio>& per_replica) {
  double tokens = 0;
  for (const auto& m : per_replica) tokens += m.prompt_tokens();
  for (const auto& p : a.curve) {
    double hit = 0;
    for (std::size_t i = 0; i < per_replica.size(); ++i) {
      const double h = per_replica[i].hit_rate_at(p.blocks);
      a.replicas[i].curve.push_back({p.blocks, h});
      hit += h * per_replica[i].prompt_tokens();
    }
    a.fleet_curve.push_back({p.blocks, tokens > 0 ? hit / tokens : 0});
  }
  for (std::size_t i = 0; i < per_replica.size(); ++i) {
    a.replicas[i].prompt_tokens = per_replica[i].prompt_tokens();
    a.replicas[i].unbounded_prefix_hit_rate = per_replica[i].unbounded_hit_rate();
  }
}

// The median and peak per-minute rates over the span the trace covers: minutes counted from the
// first arrival, the last (partial) minute rated together with the one before it over their span
// (60 to 120 s: never a sliver's count over a whole minute, nor over a sliver), and a trace shorter
// than a minute one window over its span. Every minute of the span counts, the quiet ones too,
// without listing each of them (a span of years would be millions of empty minutes).
std::pair<double, double> minute_rates(std::map<std::int64_t, std::int64_t> windows, double duration,
                                       std::int64_t requests) {
  if (windows.empty() || duration <= 0) return {0, 0};
  const auto last = static_cast<std::int64_t>(std::floor(duration / 60));
  if (last == 0) {
    const double rate = static_cast<double>(requests) / duration;
    return {rate, rate};
  }
  if (const auto tail = windows.find(last); tail != windows.end()) {
    windows[last - 1] += tail->second;
    windows.erase(tail);
  }
  const double tail_s = duration - 60.0 * static_cast<double>(last - 1);  // the last window: 60 to 120 s
  std::vector<double> busy;
  for (const auto& [minute, count] : windows) {
    busy.push_back(static_cast<double>(count) / (minute == last - 1 ? tail_s : 60.0));
  }
  std::sort(busy.begin(), busy.end());
  const auto quiet = last - static_cast<std::int64_t>(busy.size());  // windows 0 .. last-1
  const auto middle = last / 2;
  return {middle < quiet ? 0.0 : busy[static_cast<std::size_t>(middle - quiet)], busy.back()};
}

}  // namespace

TraceAnalysis analyze_trace(const std::string& path, const TraceOptions& options, int curve_points,
                            const FleetSpec& fleet, const std::function<void(const TraceRequest&)>& each) {
  TraceRouter router(fleet);  // a router the trace cannot drive is refused before the pass
  const bool split = fleet.replicas > 1;
  std::vector<PrefixMissRatio> per_replica(split ? static_cast<std::size_t>(fleet.replicas) : 0,
                                           PrefixMissRatio(options.block_tokens));
  TraceReader reader(path, options);
  TraceAnalysis a;
  a.fleet = fleet;
  if (split) a.replicas.resize(static_cast<std::size_t>(fleet.replicas));
  a.path = path;
  a.options = options;
  a.format = reader.format();
  a.reuse_recorded = reader.reuse_recorded();
  PrefixMissRatio mrc(options.block_tokens);
  LogHistogram prompt, output;
  std::map<std::int64_t, std::int64_t> per_minute;
  TraceRequest r;
  double first = -1, last = 0;
  while (true) {
    try {
      if (interrupt_requested()) throw Interrupted();
      if (!reader.next(r)) break;
    } catch (const Interrupted&) {
      a.interrupted = true;
      break;
    }
    ++a.requests;
    if (each) each(r);
    if (first < 0) first = r.arrival_s;
    last = r.arrival_s;
    prompt.add(static_cast<double>(r.prompt_tokens));
    output.add(static_cast<double>(r.output_tokens));
    ++per_minute[static_cast<std::int64_t>(std::floor((r.arrival_s - first) / 60))];
    if (!a.reuse_recorded) continue;  // a format without reuse has no curve to count: every block is new
    mrc.add(r);
    if (split) {
      const auto replica = static_cast<std::size_t>(router.route(r));
      per_replica[replica].add(r);
      ++a.replicas[replica].requests;
    }
  }
  a.lines = reader.lines_read();
  a.skipped_by_sample = reader.skipped_by_sample();
  a.failed_requests = reader.failed_requests();
  a.vllm_log = reader.vllm_log_facts();
  a.duration_s = a.requests > 0 ? last - first : 0;
  a.mean_rate = a.duration_s > 0 ? static_cast<double>(a.requests) / a.duration_s : 0;
  std::tie(a.median_minute_rate, a.peak_minute_rate) =
      minute_rates(std::move(per_minute), a.duration_s, a.requests);
  a.prompt = prompt.summary();
  a.output = output.summary();
  a.distinct_blocks = mrc.distinct_blocks();
  a.hits = mrc.hit_curve();
  a.unbounded_prefix_hit_rate = a.hits.unbounded_hit_rate();
  a.curve = a.hits.sample(curve_points);
  if (split) add_replica_curves(a, per_replica);
  return a;
}

}  // namespace kvb

#include "sim/secondary_tier.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/vllm_releases.hpp"
#include "core/errors.hpp"
#include "size/offload_plan.hpp"

namespace kvb {

namespace {

// A job of `blocks` chunks: vLLM's file-system tier hands a job's chunks to its I/O threads at once
// (16 read and 16 write threads by default: tiering/fs/manager.py), so their latencies overlap and
// the job pays one; the bytes go at the disk's rate.
SimDuration job_time(std::int64_t blocks, double block_bytes, double bytes_per_s, double latency_s) {
  return to_sim_duration(latency_s + static_cast<double>(blocks) * block_bytes / bytes_per_s,
                         "a secondary tier's transfer");
}

void refuse_unrunnable(const Scenario& s) {
  const auto& v = s.server;
  if (!v.kv_offloading_size)
    throw UsageError(fmt::format(
        "{}: a secondary tier (secondary-tier-size, --secondary-tier-size) needs a CPU tier in front of it, "
        "as "
        "vLLM's tiering cascades from the CPU tier: set kv-offloading-size (--kv-offloading-size)",
        s.origin));
  // The release tiering arrived in, from the one table of release changes (catalog/vllm_releases);
  // MultiConnector's side-by-side tiers need no tiering.
  if (v.kv_offloading_medium != OffloadMedium::kCpuAndFile &&
      !has_change(v.vllm_version, ReleaseChange::kTiering))
    throw UsageError(fmt::format(
        "{}: a secondary tier needs vLLM {} or later (its tiering, PR #40020); "
        "vllm-version (--vllm-version) is {}",
        s.origin, to_string(release_fact(ReleaseChange::kTiering).from), to_string(v.vllm_version)));
  if (v.kv_offloading_backend != OffloadingBackend::kNative)
    throw UsageError(
        fmt::format("{}: a secondary tier is vLLM's native tiering; kv-offloading-backend {} "
                    "is not simulated with one",
                    s.origin, to_string(v.kv_offloading_backend)));
  if (!v.secondary_read_gbps || !v.secondary_write_gbps)
    throw UsageError(
        fmt::format("{}: a secondary tier needs its read and write rates: secondary-read-gbps "
                    "and secondary-write-gbps (--secondary-read-gbps, --secondary-write-gbps) "
                    "or --storage-profile",
                    s.origin));
}

}  // namespace

std::optional<SecondaryTierFigures> secondary_tier_figures(const Scenario& s, double block_bytes) {
  const auto& v = s.server;
  if (!v.secondary_tier_size || *v.secondary_tier_size <= 0) return std::nullopt;
  refuse_unrunnable(s);
  // An empty CPU tier is no connector in vLLM, so no tiering either: a sweep's no-tier point.
  if (*v.kv_offloading_size <= 0) return std::nullopt;
  return SecondaryTierFigures{
      .blocks = cpu_blocks_for(*v.secondary_tier_size, static_cast<std::int64_t>(block_bytes)),
      .read_bytes_per_s = *v.secondary_read_gbps * 1e9,
      .write_bytes_per_s = *v.secondary_write_gbps * 1e9,
      .latency_s = v.secondary_latency_us * 1e-6,
      .policy = v.secondary_eviction_policy,
      .stated = v.secondary_rates_source.empty(),
      .side_by_side = v.kv_offloading_medium == OffloadMedium::kCpuAndFile};
}

SecondaryTier::SecondaryTier(const SecondaryTierFigures& figures, double block_bytes)
    : figures_(figures), block_bytes_(block_bytes), store_(figures.blocks, figures.policy, 1) {}

std::int64_t SecondaryTier::start_write(SimTime now, const std::vector<std::uint64_t>& hashes,
                                        std::int64_t request) {
  auto accepted = store_.reserve(store_.select_for_store(hashes));
  counts_.peak_blocks = std::max(counts_.peak_blocks, store_.size());
  if (accepted.empty()) return -1;
  const auto n = static_cast<std::int64_t>(accepted.size());
  const double bytes = static_cast<double>(n) * block_bytes_;
  const SimTime done =
      write_.submit(now, job_time(n, block_bytes_, figures_.write_bytes_per_s, figures_.latency_s), bytes);
  counts_.blocks_written += n;
  return jobs_.add(WriteJob{std::move(accepted), done, request});
}

const std::vector<std::uint64_t>& SecondaryTier::written(std::int64_t job) const { return jobs_[job].hashes; }

void SecondaryTier::finish_write(std::int64_t job) {
  store_.store_done(jobs_[job].hashes);
  jobs_.done(job);
}

SimTime SecondaryTier::start_read(SimTime now, const std::vector<std::uint64_t>& hashes) {
  store_.pin_for_load(hashes);  // a hit: touched, and not evicted while it is read
  const auto n = static_cast<std::int64_t>(hashes.size());
  counts_.blocks_read += n;
  return read_.submit(now, job_time(n, block_bytes_, figures_.read_bytes_per_s, figures_.latency_s),
                      static_cast<double>(n) * block_bytes_);
}

void SecondaryTier::finish_read(const std::vector<std::uint64_t>& hashes) { store_.unpin(hashes); }

SecondaryTierCounts SecondaryTier::counts() const {
  auto c = counts_;
  c.bytes_written = write_.bytes();
  c.bytes_read = read_.bytes();
  c.write_busy_s = write_.busy_seconds();
  c.read_busy_s = read_.busy_seconds();
  c.evictions = store_.evictions();
  return c;
}

std::string SecondaryTier::check() const {
  if (store_.size() > store_.capacity())
    return fmt::format("secondary tier holds {} blocks, capacity {}", store_.size(), store_.capacity());
  auto problem = store_.check();  // the policy's count against the entries
  return problem.empty() ? problem : "secondary tier: " + problem;
}

}  // namespace kvb

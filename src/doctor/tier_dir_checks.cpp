#include "doctor/tier_dir_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "core/errors.hpp"
#include "storage/storage_run.hpp"

namespace kvb {
namespace {

constexpr std::array<std::pair<DirProblem, const char*>, 5> kProblems = {{
    {DirProblem::kNone, ""},
    {DirProblem::kMissing, "missing"},
    {DirProblem::kNotDirectory, "not a directory"},
    {DirProblem::kNotWritable, "not writable"},
    {DirProblem::kCannotCreate, "cannot create files"},
}};

// A tier on memory takes host DRAM from the CPU tier; one on a network file system shares its
// bandwidth and pays its latency; one on overlay lives in the container's writable layer.
CheckStatus fs_status(FsKind k) {
  return k == FsKind::kMemory || k == FsKind::kNetwork || k == FsKind::kOverlay ? CheckStatus::kWarn
                                                                                : CheckStatus::kPass;
}

CheckResult space_check(const TierDirRequest& r) {
  const auto& d = r.dir;
  TierSpaceFinding found{d, r.size_bytes};
  const double free = static_cast<double>(d.free_bytes);
  if (d.problem == DirProblem::kMissing || d.problem == DirProblem::kNotDirectory || d.total_bytes == 0)
    return make_check("tier-dir space", CheckStatus::kSkip, std::move(found), {}, {}, "bytes");
  if (!r.size_bytes)
    return make_check("tier-dir space", CheckStatus::kPass, std::move(found), free, {}, "bytes");
  const auto status = free < *r.size_bytes ? CheckStatus::kFail : CheckStatus::kPass;
  return make_check("tier-dir space", status, std::move(found), free, *r.size_bytes, "bytes");
}

CheckResult rate_check(const TierDirRequest& r) {
  const auto& m = *r.rate;
  TierRateFinding found{r.dir.path, m, r.needs_gbps};
  if (!m.waived.empty()) {
    return make_check("tier-dir rate", r.needs_gbps ? CheckStatus::kFail : CheckStatus::kSkip,
                      std::move(found), {}, r.needs_gbps, "GB/s");
  }
  const double slower = std::min(m.write_gbps, m.read_gbps);
  const auto status = r.needs_gbps && slower < *r.needs_gbps ? CheckStatus::kFail : CheckStatus::kPass;
  return make_check("tier-dir rate", status, std::move(found), slower, r.needs_gbps, "GB/s");
}

}  // namespace

std::string to_string(DirProblem p) {
  for (const auto& [problem, text] : kProblems) {
    if (problem == p) return text;
  }
  return "";
}

DirProblem parse_dir_problem(const std::string& text, const std::string& what) {
  for (const auto& [problem, name] : kProblems) {
    if (text == name) return problem;
  }
  throw UsageError(fmt::format(
      "{}: '{}'; expected \"\", missing, not a directory, not writable or cannot create files", what, text));
}

TierDirRequest inspect_tier_dir(const std::string& dir) { return {inspect_storage_dir(dir), {}, {}, {}}; }

TierDirRate measure_tier_dir_rate(const StorageDirFacts& dir) {
  StorageCase c;
  c.layout = StorageLayout::kPerRankFile;
  c.mode = dir.direct_supported ? IoMode::kDirect : IoMode::kBuffered;
  c.engine = IoEngine::kThreads;
  c.chunk_bytes = 4 << 20;
  c.chunks = static_cast<std::int64_t>(kTierRateBytes) / static_cast<std::int64_t>(c.chunk_bytes);
  c.threads = 4;
  StorageRunSettings s;
  s.repeats = 3;
  TierDirRate out;
  out.how = c.id();
  out.bytes = static_cast<double>(c.bytes());
  if (dir.problem != DirProblem::kNone) {
    out.waived = "the directory cannot take files";
    return out;
  }
  const auto rec = run_storage_case(dir, c, s);
  out.waived = rec.waived ? rec.waive_reason : rec.verified ? "" : "read back wrong: " + rec.verify_detail;
  out.write_gbps = rec.write.median_gbps;
  out.read_gbps = rec.read.median_gbps;
  return out;
}

std::vector<CheckResult> tier_dir_checks(const TierDirRequest& r) {
  const auto& d = r.dir;
  std::vector<CheckResult> out;
  out.push_back(make_check("tier-dir",
                           d.problem == DirProblem::kNone ? CheckStatus::kPass : CheckStatus::kFail,
                           TierDirFinding{d}));
  // A path that is not a directory: its file system is not the tier's (nothing is created there).
  const bool statfs_known =
      d.problem != DirProblem::kMissing && d.problem != DirProblem::kNotDirectory && d.fs_magic != 0;
  out.push_back(
      make_check("tier-dir fs", statfs_known ? fs_status(d.fs_kind) : CheckStatus::kSkip, TierFsFinding{d}));
  out.push_back(space_check(r));
  const auto direct = d.problem != DirProblem::kNone ? CheckStatus::kSkip
                      : d.direct_supported           ? CheckStatus::kPass
                                                     : CheckStatus::kWarn;
  out.push_back(make_check("tier-dir O_DIRECT", direct, TierDirectFinding{d}));
  if (r.rate) out.push_back(rate_check(r));
  return out;
}

}  // namespace kvb

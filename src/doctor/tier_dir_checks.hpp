#pragma once
// doctor's checks of a secondary tier's directory (--tier-dir): it can take the tier's files, its
// file system (memory, network and a container's overlay named), its free space against the
// tier's size, O_DIRECT, and optionally a short measured rate against the rate the tier needs.
#include <string>
#include <vector>

#include "doctor/node_checks.hpp"
#include "doctor/tier_dir_facts.hpp"

namespace kvb {

// The data a --tier-dir-rate run writes and reads: small enough for a node check, large enough to
// span several chunks per thread.
inline constexpr double kTierRateBytes = 64.0 * 1024 * 1024;

// The directory's facts, never throwing for its state (a missing directory is a failed check).
TierDirRequest inspect_tier_dir(const std::string& dir);

// The storage case kvbench storage would run for the Simple connector's disk backend (one
// per-rank file, O_DIRECT where the file system takes it), 64 MiB in 4 MiB chunks, 3 passes.
TierDirRate measure_tier_dir_rate(const StorageDirFacts& dir);

// "tier-dir", "tier-dir fs", "tier-dir space", "tier-dir O_DIRECT" and, where measured, "tier-dir rate".
std::vector<CheckResult> tier_dir_checks(const TierDirRequest& r);

// The directory's problem as the JSON spells it ("" for none) and back (UsageError naming `what`).
std::string to_string(DirProblem p);
DirProblem parse_dir_problem(const std::string& text, const std::string& what);

}  // namespace kvb

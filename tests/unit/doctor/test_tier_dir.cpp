// doctor --tier-dir: each check's verdict from the directory's facts (free space against the
// tier's size, the file system's kind, O_DIRECT, the measured rate against the rate needed), the
// words that carry them, and the document's tier_dir read back byte for byte.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/units.hpp"
#include "doctor/doctor_json.hpp"
#include "doctor/tier_dir_checks.hpp"
#include "output/doctor/doctor_check_text.hpp"

namespace kvb {
namespace {

// By value: several tests look into a temporary list of checks.
CheckResult find(const std::vector<CheckResult>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no check " + name);
}

StorageDirFacts local_dir(std::uint64_t free_bytes) {
  StorageDirFacts d;
  d.path = "/mnt/nvme/kv";
  d.fs_type = "xfs";
  d.fs_magic = 0x58465342;
  d.fs_kind = FsKind::kLocal;
  d.free_bytes = free_bytes;
  d.total_bytes = 4 * free_bytes;
  d.direct_supported = true;
  return d;
}

std::vector<CheckResult> checks_for(const TierDirRequest& r) { return worded_checks(tier_dir_checks(r)); }

TEST(TierDir, FreeSpaceBelowTheTiersSizeFailsAndSaysTheFsTierHasNoBound) {
  const auto checks = checks_for({local_dir(100 * 1024ULL * 1024 * 1024), 500 * kGiB, {}, {}});
  const auto& space = find(checks, "tier-dir space");
  EXPECT_EQ(space.status, CheckStatus::kFail);
  EXPECT_DOUBLE_EQ(*space.value, 100 * kGiB);
  EXPECT_DOUBLE_EQ(*space.threshold, 500 * kGiB);
  EXPECT_NE(space.detail.find("does not fit"), std::string::npos) << space.detail;
  EXPECT_NE(space.source.find("54779"), std::string::npos) << space.source;
  EXPECT_EQ(doctor_exit_code(checks), 1);
  // One byte more free than the tier: it fits.
  const auto fits = checks_for({local_dir(500 * 1024ULL * 1024 * 1024 + 1), 500 * kGiB, {}, {}});
  EXPECT_EQ(find(fits, "tier-dir space").status, CheckStatus::kPass);
  EXPECT_EQ(doctor_exit_code(fits), 0);
  // No size asked: the free space is reported, with nothing to fail against.
  const auto& unsized = find(checks_for({local_dir(1024), {}, {}, {}}), "tier-dir space");
  EXPECT_EQ(unsized.status, CheckStatus::kPass);
  EXPECT_FALSE(unsized.threshold.has_value());
}

TEST(TierDir, MemoryNetworkAndOverlayWarnWithTheirKindNamed) {
  struct Case {
    const char* name;
    std::uint32_t magic;
    FsKind kind;
    const char* says;
  };
  for (const auto& k : {Case{"tmpfs", 0x01021994, FsKind::kMemory, "memory, not disk"},
                        Case{"nfs", 0x6969, FsKind::kNetwork, "network file system"},
                        Case{"overlay", 0x794C7630, FsKind::kOverlay, "not a volume"}}) {
    auto d = local_dir(kTierRateBytes);
    d.fs_type = k.name;
    d.fs_magic = k.magic;
    d.fs_kind = k.kind;
    const auto& fs = find(checks_for({d, {}, {}, {}}), "tier-dir fs");
    EXPECT_EQ(fs.status, CheckStatus::kWarn) << k.name;
    EXPECT_NE(fs.detail.find(k.says), std::string::npos) << fs.detail;
    EXPECT_NE(fs.detail.find(k.name), std::string::npos) << fs.detail;
  }
  EXPECT_EQ(find(checks_for({local_dir(1), {}, {}, {}}), "tier-dir fs").status, CheckStatus::kPass);
}

TEST(TierDir, AMissingDirectoryFailsAndSkipsWhatCannotBeRead) {
  const auto checks = checks_for({inspect_storage_dir("/nonexistent/kvbench-tier"), 1 * kGiB, {}, {}});
  EXPECT_EQ(find(checks, "tier-dir").status, CheckStatus::kFail);
  EXPECT_NE(find(checks, "tier-dir").detail.find("not there"), std::string::npos);
  for (const char* name : {"tier-dir fs", "tier-dir space", "tier-dir O_DIRECT"})
    EXPECT_EQ(find(checks, name).status, CheckStatus::kSkip) << name;
  EXPECT_EQ(doctor_exit_code(checks), 1);
}

TEST(TierDir, AReadOnlyDirectoryStillHasItsFileSystemAndSpace) {
  auto d = local_dir(10 * 1024ULL * 1024 * 1024);
  d.problem = DirProblem::kNotWritable;
  d.problem_errno = "Read-only file system";
  d.direct_supported = false;
  const auto checks = checks_for({d, 1 * kGiB, {}, {}});
  EXPECT_EQ(find(checks, "tier-dir").status, CheckStatus::kFail);
  EXPECT_EQ(find(checks, "tier-dir fs").status, CheckStatus::kPass);
  EXPECT_EQ(find(checks, "tier-dir space").status, CheckStatus::kPass);
  EXPECT_EQ(find(checks, "tier-dir O_DIRECT").status, CheckStatus::kSkip);
}

TEST(TierDir, ARefusedODirectWarnsWithTheKernelsAnswer) {
  auto d = local_dir(1);
  d.direct_supported = false;
  d.direct_refusal = direct_refusal_text(EINVAL);
  const auto& direct = find(checks_for({d, {}, {}, {}}), "tier-dir O_DIRECT");
  EXPECT_EQ(direct.status, CheckStatus::kWarn);
  EXPECT_NE(direct.detail.find("EINVAL"), std::string::npos) << direct.detail;
}

TEST(TierDir, TheSlowerDirectionIsHeldAgainstTheRateNeeded) {
  const TierDirRate rate{"per-rank-file/direct/threads/4 MiB/t4/qd1", kTierRateBytes, "", 2.0, 3.0};
  const auto& slow = find(checks_for({local_dir(1), {}, rate, 2.5}), "tier-dir rate");
  EXPECT_EQ(slow.status, CheckStatus::kFail);
  EXPECT_DOUBLE_EQ(*slow.value, 2.0);  // the write, the slower of the two
  EXPECT_EQ(find(checks_for({local_dir(1), {}, rate, 1.5}), "tier-dir rate").status, CheckStatus::kPass);
  EXPECT_EQ(find(checks_for({local_dir(1), {}, rate, {}}), "tier-dir rate").status, CheckStatus::kPass);
  auto waived = rate;
  waived.waived = "read back wrong";
  EXPECT_EQ(find(checks_for({local_dir(1), {}, waived, 1.0}), "tier-dir rate").status, CheckStatus::kFail);
  EXPECT_EQ(find(checks_for({local_dir(1), {}, waived, {}}), "tier-dir rate").status, CheckStatus::kSkip);
}

TEST(TierDir, TheDocumentCarriesTheFactsAndReadsBackByteForByte) {
  auto d = local_dir(7 * 1024ULL * 1024 * 1024);
  d.direct_supported = false;
  d.direct_refusal = direct_refusal_text(EINVAL);
  DoctorRequest request{.tier_bytes = 16 * kGiB, .pinning = {}, .gpu_skip_reason = "test", .numa = {}};
  request.tier_dir = TierDirRequest{d, 8 * kGiB, TierDirRate{"c", kTierRateBytes, "", 1.5, 2.5}, 1.0};
  const NodeFacts facts;
  const auto written =
      doctor_json(doctor_report(worded_checks(run_node_checks(facts, request)), "n", request, facts));
  const auto& t = written.at("tier_dir");
  EXPECT_EQ(t.at("fs_type"), "xfs");
  EXPECT_EQ(t.at("fs_magic"), 0x58465342u);
  EXPECT_EQ(t.at("fs_kind"), "local");
  EXPECT_EQ(t.at("free_bytes"), 7 * 1024ULL * 1024 * 1024);
  EXPECT_EQ(t.at("direct_supported"), false);
  EXPECT_EQ(t.at("rate").at("write_gbps"), 1.5);
  const auto read = doctor_report_from_json(written);
  EXPECT_EQ(doctor_json(read).dump(), written.dump());
  EXPECT_EQ(find(read.checks, "tier-dir space").status, CheckStatus::kFail);
  EXPECT_FALSE(doctor_json(doctor_report({}, "n", DoctorRequest{}, facts)).contains("tier_dir"));
}

// The real run: a scratch directory written and read back through storage's engine.
TEST(TierDir, MeasuresASmallSampleInARealDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / "kvbench-tier-rate-test";
  std::filesystem::create_directories(dir);
  const auto r = measure_tier_dir_rate(inspect_storage_dir(dir.string()));
  const bool empty = std::filesystem::is_empty(dir);  // every chunk file removed
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(r.waived.empty()) << r.waived;
  EXPECT_DOUBLE_EQ(r.bytes, kTierRateBytes);
  EXPECT_GT(r.write_gbps, 0);
  EXPECT_GT(r.read_gbps, 0);
  EXPECT_TRUE(empty);
}

}  // namespace
}  // namespace kvb

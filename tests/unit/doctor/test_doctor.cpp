// kvbench doctor: the facts read from recorded nodes (tests/data/nodes), the checks' verdicts
// against hand-computed thresholds, and the Prometheus text parsed back.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "catalog/vllm_host_memory.hpp"
#include "core/units.hpp"
#include "doctor/doctor_json.hpp"
#include "doctor/host_pinning.hpp"
#include "doctor/node_checks.hpp"
#include "doctor/node_facts.hpp"
#include "output/doctor/doctor_check_text.hpp"
#include "output/doctor/doctor_output.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

std::string node(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/nodes/" + name; }

const CheckResult& find(const std::vector<CheckResult>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no check " + name);
}

// The checks as the command prints them: each worded from what it found.
std::vector<CheckResult> checks_in_words(const NodeFacts& f, const DoctorRequest& r) {
  return worded_checks(run_node_checks(f, r));
}

TEST(NodeFacts, ReadsTheRecordedHealthyNode) {
  const auto f = read_node_facts(node("healthy"));
  EXPECT_DOUBLE_EQ(f.mem_total_bytes, 527'000'000.0 * 1024);
  EXPECT_DOUBLE_EQ(f.shm.size_bytes, f.mem_total_bytes / 2);  // tmpfs default: no size= option
  EXPECT_TRUE(f.shm.size_from_default);
  EXPECT_FALSE(f.memlock_soft_bytes.has_value());  // unlimited
  EXPECT_TRUE(f.memlock_known);
  EXPECT_EQ(f.thp_mode, "madvise");
  EXPECT_EQ(f.iommu_mode, "passthrough");
  EXPECT_EQ(f.numa_nodes, 2);
  ASSERT_EQ(f.gpus.size(), 1u);  // the ISA bridge beside it is not a GPU
  EXPECT_EQ(f.gpus[0].max_width, 16);
  EXPECT_EQ(f.nvidia_driver, "580.159.04");
}

TEST(NodeChecks, ShmFailsForTheTierAndNamesTheLeftoverFile) {
  const auto f = read_node_facts(node("small-shm"));
  EXPECT_DOUBLE_EQ(f.shm.size_bytes, 65536.0 * 1024);  // size=65536k, Docker's default 64 MB
  const auto checks =
      checks_in_words(f, {.tier_bytes = 16 * kGiB, .pinning = {}, .gpu_skip_reason = "test", .numa = {}});
  const auto& shm = find(checks, "shm");
  EXPECT_EQ(shm.status, CheckStatus::kFail);
  EXPECT_NE(shm.detail.find("vllm_cpu_kv_tier_rank0"), std::string::npos);
  EXPECT_EQ(doctor_exit_code(checks), 1);
}

TEST(NodeChecks, MemoryThresholdIsTheTierPlusTenPercentOfRam) {
  const auto f = read_node_facts(node("healthy"));
  const double reserve = 0.1 * f.mem_total_bytes;  // above 8 GiB here
  const double available = f.mem_available_bytes;
  // The tier (exact on the default vLLM: a /dev/shm region) plus the server's 3 GiB process.
  const double server = kServerProcessGibPerRank * kGiB;
  // Just fits with the reserve, then into the reserve, then not at all.
  EXPECT_EQ(find(checks_in_words(f, {.tier_bytes = available - reserve - server - kGiB,
                                     .pinning = {},
                                     .gpu_skip_reason = "",
                                     .numa = {}}),
                 "memory")
                .status,
            CheckStatus::kPass);
  EXPECT_EQ(
      find(
          checks_in_words(
              f, {.tier_bytes = available - server - kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}}),
          "memory")
          .status,
      CheckStatus::kWarn);
  EXPECT_EQ(
      find(
          checks_in_words(
              f, {.tier_bytes = available - server + kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}}),
          "memory")
          .status,
      CheckStatus::kFail);
}

// A pod's cgroup v2 limit (100 GiB at the pod level, "max" at the container's), 2 GiB in use.
TEST(NodeFacts, CgroupV2TakesTheTightestLimitUpTheTree) {
  const auto f = read_node_facts(node("pod-limit"));
  ASSERT_EQ(f.cgroup.version, 2);
  ASSERT_TRUE(f.cgroup.limit_bytes.has_value());
  EXPECT_DOUBLE_EQ(*f.cgroup.limit_bytes, 100 * kGiB);
  EXPECT_DOUBLE_EQ(f.cgroup.usage_bytes, 2 * kGiB);
  EXPECT_NE(f.cgroup.limit_file.find("pod7c1e.slice/memory.max"), std::string::npos) << f.cgroup.limit_file;
}

// cgroup v1: the container's 64 GiB, not the root's 9223372036854771712 (no limit).
TEST(NodeFacts, CgroupV1ReadsTheMemoryController) {
  const auto f = read_node_facts(node("cgroup-v1"));
  ASSERT_EQ(f.cgroup.version, 1);
  ASSERT_TRUE(f.cgroup.limit_bytes.has_value());
  EXPECT_DOUBLE_EQ(*f.cgroup.limit_bytes, 64 * kGiB);
  EXPECT_DOUBLE_EQ(f.cgroup.usage_bytes, kGiB);
  const auto none = read_node_facts(node("healthy"));  // no proc/self/cgroup recorded
  EXPECT_EQ(none.cgroup.version, 0);
}

// 98 GiB free in the pod: an 80 GiB tier fits on vLLM 0.27 (80 + 3) but not on 0.26, whose pinned
// tensor rounds 80 GiB up to 128 GiB (vLLM PR #48436).
TEST(NodeChecks, CgroupComparesTheRealFootprintNotTheFlag) {
  const auto f = read_node_facts(node("pod-limit"));
  DoctorRequest r{.tier_bytes = 80 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}};
  auto c = find(checks_in_words(f, r), "cgroup");
  EXPECT_EQ(c.status, CheckStatus::kPass) << c.detail;
  EXPECT_DOUBLE_EQ(*c.threshold, 83 * kGiB);
  EXPECT_DOUBLE_EQ(*c.value, 98 * kGiB);
  r.vllm_version = {0, 26, 0};
  c = find(checks_in_words(f, r), "cgroup");
  EXPECT_EQ(c.status, CheckStatus::kFail) << c.detail;
  EXPECT_DOUBLE_EQ(*c.threshold, 131 * kGiB);
  // Split over 4 ranks, 20 GiB each rounds to 32: 128 GiB of tier and 4 x 3 GiB of servers.
  r.ranks = 4;
  EXPECT_DOUBLE_EQ(*find(checks_in_words(f, r), "cgroup").threshold, 140 * kGiB);
}

// On 0.27 the tier is a /dev/shm region: 200 GiB of tmpfs holds 150 but not 210; before 0.27 the
// tier never lands in /dev/shm.
TEST(NodeChecks, ShmHoldsTheTierOnlyWhereVllmPutsItThere) {
  const auto f = read_node_facts(node("pod-limit"));
  DoctorRequest r{.tier_bytes = 150 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}};
  EXPECT_EQ(find(checks_in_words(f, r), "shm").status, CheckStatus::kPass);
  r.tier_bytes = 210 * kGiB;
  EXPECT_EQ(find(checks_in_words(f, r), "shm").status, CheckStatus::kFail);
  r.vllm_version = {0, 26, 0};
  const auto c = find(checks_in_words(f, r), "shm");
  EXPECT_EQ(c.status, CheckStatus::kPass) << c.detail;
  EXPECT_DOUBLE_EQ(*c.threshold, 0.0);
}

// A region of 512 GiB or more cannot be pinned in one cudaHostRegister call (issue #51080): from
// 0.27, when the region came, until 0.31, when it is registered in chunks (PR #51081).
TEST(NodeChecks, ShmFailsARegionTheReleaseCannotPinInOneCall) {
  const auto f = read_node_facts(node("pod-limit"));  // 200 GiB of /dev/shm
  DoctorRequest r{.tier_bytes = 600 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}};
  r.vllm_version = {0, 30, 0};
  auto c = find(checks_in_words(f, r), "shm");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_NE(c.detail.find("cannot pin its 600.0 GiB tier region"), std::string::npos) << c.detail;
  EXPECT_NE(c.source.find("#51081"), std::string::npos) << c.source;
  r.vllm_version = {0, 31, 0};  // pinned in chunks: only /dev/shm's size is short
  c = find(checks_in_words(f, r), "shm");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_NE(c.detail.find("does not fit"), std::string::npos) << c.detail;
  r.vllm_version = {0, 26, 0};  // pinned tensors per rank: no region
  EXPECT_EQ(find(checks_in_words(f, r), "shm").status, CheckStatus::kPass);
  r.vllm_version = {0, 30, 0};  // 511 GiB: one call pins it (the size alone fails: 200 GiB of tmpfs)
  r.tier_bytes = 511 * kGiB;
  EXPECT_EQ(find(checks_in_words(f, r), "shm").detail.find("cannot pin"), std::string::npos);
}

TEST(NodeChecks, PinningProjectsTheTiersStartUp) {
  // 1 GiB in 0.26 s -> a 280 GiB tier takes 72.8 s.
  const PinningMeasurement m{
      .how = "test", .bytes = kGiB, .seconds = 0.26, .error = "", .server_tier = false};
  const auto f = read_node_facts(node("healthy"));
  const auto checks =
      checks_in_words(f, {.tier_bytes = 280 * kGiB, .pinning = {m}, .gpu_skip_reason = "", .numa = {}});
  const auto& p = find(checks, "pinning");  // a reference into `checks`, which outlives it
  ASSERT_TRUE(p.value.has_value());
  EXPECT_NEAR(*p.value, 72.8, 1e-9);
  EXPECT_EQ(p.status, CheckStatus::kPass);
}

// vLLM's tier registers a /dev/shm mapping at start-up: where that fails, the server cannot start.
TEST(NodeChecks, PinningFailsWhenVllmsRegistrationFails) {
  const auto f = read_node_facts(node("healthy"));
  const PinningMeasurement vllm{
      .how = "mmap of a /dev/shm file + first touch + cudaHostRegister (vLLM's CPU tier)",
      .bytes = kGiB,
      .seconds = 0.1,
      .error = "cudaHostRegister: operation not supported",
      .server_tier = true};
  const PinningMeasurement alloc{
      .how = "cudaHostAlloc", .bytes = kGiB, .seconds = 0.4, .error = "", .server_tier = false};
  auto checks = checks_in_words(
      f, {.tier_bytes = 64 * kGiB, .pinning = {vllm, alloc}, .gpu_skip_reason = "", .numa = {}});
  const auto failed = find(checks, "pinning");
  EXPECT_EQ(failed.status, CheckStatus::kFail);
  EXPECT_NE(failed.detail.find("will not start"), std::string::npos) << failed.detail;
  EXPECT_NE(failed.detail.find("cudaHostAlloc: 1.00 GiB in 0.400 s"), std::string::npos) << failed.detail;
  // Both ways pinned: the start-up comes from the first (vLLM's), 0.26 s/GiB x 64 GiB.
  const PinningMeasurement ok{
      .how = vllm.how, .bytes = kGiB, .seconds = 0.26, .error = "", .server_tier = true};
  checks = checks_in_words(
      f, {.tier_bytes = 64 * kGiB, .pinning = {ok, alloc}, .gpu_skip_reason = "", .numa = {}});
  const auto passed = find(checks, "pinning");
  EXPECT_EQ(passed.status, CheckStatus::kPass);
  EXPECT_NEAR(*passed.value, 0.26 * 64, 1e-9);
  // The other way failing is worth a warning, not a failure.
  const PinningMeasurement alloc_failed{
      .how = "cudaHostAlloc", .bytes = kGiB, .seconds = 0, .error = "out of memory", .server_tier = false};
  checks = checks_in_words(
      f, {.tier_bytes = 64 * kGiB, .pinning = {ok, alloc_failed}, .gpu_skip_reason = "", .numa = {}});
  EXPECT_EQ(find(checks, "pinning").status, CheckStatus::kWarn);
}

// The remote node's bandwidth against 90% of the local one: 40 of 53 GB/s (-25%) warns with the
// binding to use, 52 of 53 (-2%) passes.
TEST(NodeChecks, NumaMeasuredWarnsWhenTheRemoteNodeIsSlower) {
  const auto f = read_node_facts(node("healthy"));
  const NumaMeasurement slow{.gpu_index = 0,
                             .gpu_name = "NVIDIA H100",
                             .local_node = 1,
                             .remote_node = 0,
                             .local_gbps = 53,
                             .remote_gbps = 40};
  const NumaMeasurement close{.gpu_index = 1,
                              .gpu_name = "NVIDIA H100",
                              .local_node = 0,
                              .remote_node = 1,
                              .local_gbps = 53,
                              .remote_gbps = 52};
  const auto checks = checks_in_words(
      f, {.tier_bytes = 64 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {slow, close}});
  std::vector<CheckResult> numa;
  for (const auto& c : checks) {
    if (c.name == "numa measured") numa.push_back(c);
  }
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_EQ(numa[0].status, CheckStatus::kWarn);
  EXPECT_NE(numa[0].detail.find("numactl --cpunodebind=1 --membind=1"), std::string::npos) << numa[0].detail;
  EXPECT_NE(numa[0].detail.find("(-25%)"), std::string::npos) << numa[0].detail;
  EXPECT_EQ(numa[1].status, CheckStatus::kPass);
  EXPECT_NEAR(*numa[1].threshold, 0.9 * 53, 1e-9);
}

// Known failures by platform and size (vllm-project/vllm#55428, #51080) and a runtime newer than
// the driver.
TEST(NodeChecks, DriverNamesKnownOffloadingFailures) {
  const auto guest = read_node_facts(node("cc-guest"));
  EXPECT_TRUE(guest.tdx_guest);
  EXPECT_FALSE(read_node_facts(node("healthy")).tdx_guest);
  auto d = find(
      checks_in_words(guest, {.tier_bytes = 64 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}}),
      "driver");
  EXPECT_EQ(d.status, CheckStatus::kWarn);
  EXPECT_NE(d.detail.find("vllm#55428"), std::string::npos);
  const auto f = read_node_facts(node("healthy"));
  d = find(checks_in_words(f, {.tier_bytes = 511 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}}),
           "driver");
  EXPECT_EQ(d.status, CheckStatus::kPass);
  d = find(checks_in_words(f, {.tier_bytes = 512 * kGiB, .pinning = {}, .gpu_skip_reason = "", .numa = {}}),
           "driver");
  EXPECT_EQ(d.status, CheckStatus::kWarn);
  EXPECT_NE(d.detail.find("vllm#51080"), std::string::npos);
  d = find(checks_in_words(
               f, {.tier_bytes = 64 * kGiB,
                   .pinning = {},
                   .gpu_skip_reason =
                       "no GPU found (cuda: CUDA driver version is insufficient for CUDA runtime version)",
                   .numa = {}}),
           "driver");
  EXPECT_EQ(d.status, CheckStatus::kFail);
}

TEST(HostPinning, TouchesAndTimesASmallRegion) {
  const auto m = measure_host_pinning(1 << 20, false);
  EXPECT_TRUE(m.error.empty()) << m.error;
  EXPECT_GT(m.seconds, 0);
}

TEST(DoctorPrometheus, ParsesBackWithTheHostEscaped) {
  const auto f = read_node_facts(node("downtrained"));
  const DoctorRequest request{.tier_bytes = 64 * kGiB, .pinning = {}, .gpu_skip_reason = "test", .numa = {}};
  const auto checks = checks_in_words(f, request);
  const auto text = doctor_prometheus(doctor_report(checks, "node \"7\"\\a", request, f));
  // Every sample line: name{labels} value, label values quoted with \" and \\ escaped.
  const std::regex sample(R"re(^kvbench_doctor_check_(status|value)\{host="(?:[^"\\]|\\.)*",)re"
                          R"re(check="[^"]*"(,unit="[^"]*")?\} -?[0-9.e+]+$)re");
  std::istringstream in(text);
  std::string line;
  int samples = 0, failed_link = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
    ++samples;
    if (line.find("check=\"link 0000:1b:00.0\"} 2") != std::string::npos) ++failed_link;
  }
  EXPECT_GE(samples, static_cast<int>(checks.size()));
  EXPECT_EQ(failed_link, 1);  // x8 of x16: fail = 2
  EXPECT_NE(text.find("host=\"node \\\"7\\\"\\\\a\""), std::string::npos);
}

// The document doctor writes is read back into the same report, which writes the same bytes: on
// each recorded node (known and unknown figures, cgroup v1 and v2, a missing /dev/shm size) and on
// the release whose tier is pinned tensors (0.26) as on the /dev/shm region (0.27).
TEST(DoctorJson, EveryRecordedNodesDocumentRoundTripsByteForByte) {
  for (const char* name : {"healthy", "small-shm", "downtrained", "tight", "pod-limit", "cgroup-v1",
                           "cc-guest", "daemonset-node"}) {
    for (const auto& version : {VllmVersion{0, 26, 0}, VllmVersion{0, 27, 0}}) {
      const auto f = read_node_facts(node(name));
      const DoctorRequest request{.tier_bytes = 40 * kGiB,
                                  .pinning = {},
                                  .gpu_skip_reason = "test",
                                  .numa = {},
                                  .vllm_version = version};
      const auto written = doctor_json(doctor_report(checks_in_words(f, request), name, request, f));
      const auto read = doctor_report_from_json(written);
      EXPECT_EQ(doctor_json(read).dump(), written.dump()) << name;
      EXPECT_EQ(read.node_memory, node_memory(f)) << name;
      EXPECT_DOUBLE_EQ(read.host_memory.tier_host_bytes, doctor_footprint(request).tier_host_bytes) << name;
    }
  }
}

// 0.26 pins each rank's 40 GiB as a PyTorch tensor rounded up to a power of two: 64 GiB on the
// host (1.6x), none of it in /dev/shm; the reader gives those figures back from the document.
TEST(DoctorJson, TheReaderGivesBackTheTiersRealFootprint) {
  const auto f = read_node_facts(node("pod-limit"));
  const DoctorRequest request{.tier_bytes = 40 * kGiB,
                              .pinning = {},
                              .gpu_skip_reason = "test",
                              .numa = {},
                              .vllm_version = {0, 26, 0}};
  const auto read =
      doctor_report_from_json(doctor_json(doctor_report(checks_in_words(f, request), "n", request, f)));
  EXPECT_DOUBLE_EQ(read.host_memory.tier_host_bytes, 64 * kGiB);
  EXPECT_DOUBLE_EQ(read.host_memory.dev_shm_bytes, 0);
  EXPECT_DOUBLE_EQ(read.tier_size_bytes, 40 * kGiB);
  EXPECT_EQ(doctor_view(read).hostname, "n");
}

}  // namespace
}  // namespace kvb

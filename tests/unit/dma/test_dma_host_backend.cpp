// dma without a GPU, the host backend end to end: every method verifies, records and their JSON,
// the table's bidir mark, NUMA binding and the compute load beside the copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/data_pattern.hpp"
#include "backend/verify.hpp"
#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "core/numa_binding.hpp"
#include "dma/block_sizes.hpp"
#include "dma/dma_json.hpp"
#include "dma/dma_record.hpp"
#include "dma/dma_sweep.hpp"
#include "dma/statistics.hpp"
#include "dma/sysfs_link.hpp"
#include "dma/transfer_backend.hpp"
#include "output/dma/dma_output.hpp"

using namespace kvb;

namespace {
TransferCase small_case(Direction d, Method m, Layout layout = Layout::kContiguous) {
  TransferCase c;
  c.direction = d;
  c.method = m;
  c.layout = layout;
  c.layers = layout == Layout::kPerLayer ? 8 : 1;
  c.block_bytes = 16384;
  c.blocks = 64;
  c.gpu_pool_blocks = 256;
  c.host_pool_blocks = 200;
  c.ctas = 2;
  return c;
}
StoppingRule quick() {
  StoppingRule r;
  r.warmups = 1;
  r.min_samples = 3;
  r.min_seconds = 0;
  r.max_seconds = 0.2;
  return r;
}
}  // namespace

TEST(HostBackend, EveryMethodAndDirectionVerifies) {
  auto b = make_host_backend();
  for (auto d : {Direction::kH2D, Direction::kD2H, Direction::kBidir}) {
    for (auto m : {Method::kCe, Method::kKernel}) {
      for (auto layout : {Layout::kContiguous, Layout::kPerLayer}) {
        const auto r = b->measure(small_case(d, m, layout), quick());
        EXPECT_FALSE(r.waived);
        EXPECT_TRUE(r.verified) << to_string(d) << " " << to_string(m) << ": " << r.verify_detail;
        EXPECT_GE(r.runs.size(), 3u);
        if (d == Direction::kBidir) {
          ASSERT_EQ(r.h2d_s.size(), r.runs.size());
          // The pair's span is the union of the two directions' spans: never shorter than either.
          for (std::size_t i = 0; i < r.runs.size(); ++i) {
            EXPECT_GE(r.runs[i].device_s, std::max(r.h2d_s[i], r.d2h_s[i]));
          }
        }
      }
    }
  }
  EXPECT_TRUE(b->measure(small_case(Direction::kH2D, Method::kCeBatch), quick()).waived);
}

TEST(DmaRecord, GbpsFromBytesOverMedianAndJsonRoundTrip) {
  TransferCase c = small_case(Direction::kBidir, Method::kCe);
  CaseResult r;
  r.runs = {{0.002, 0.0021}, {0.001, 0.0011}, {0.004, 0.0041}};
  r.h2d_s = {0.002, 0.001, 0.004};
  r.d2h_s = {0.002, 0.001, 0.004};
  r.verified = true;
  DeviceInfo dev;
  dev.backend = "host";
  dev.name = "<script>x</script>";
  dev.link_ceiling_gbps = 63.0;
  const auto rec = make_record(c, dev, "cpu", r);
  const double bytes = 2.0 * 16384 * 64;
  EXPECT_DOUBLE_EQ(rec.median_gbps, bytes / 0.002 / 1e9);
  EXPECT_DOUBLE_EQ(rec.p90_gbps, bytes / (0.001 + 0.2 * 0.001) / 1e9);  // p10 of time
  EXPECT_DOUBLE_EQ(rec.h2d_gbps, 16384.0 * 64 / 0.002 / 1e9);
  const auto back = dma_records_from_json(dma_json({rec}), "mem");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].id, rec.id);
  EXPECT_EQ(back[0].samples_s, rec.samples_s);
  EXPECT_DOUBLE_EQ(back[0].median_gbps, rec.median_gbps);
  EXPECT_EQ(back[0].device.name, dev.name);
  EXPECT_THROW((void)dma_records_from_json(nlohmann::json{{"schema", "kvbench/size/v1"}}, "x.json"),
               UsageError);
}

// bidir: the pair's figure is both directions' bytes over the union of their spans. Directions
// that overlap give a pair figure above either; directions that ran one after the other give less,
// and the table marks that row instead of printing a sum below its parts unexplained.
TEST(DmaTable, BidirPairBelowEitherDirectionIsMarked) {
  TransferCase c = small_case(Direction::kBidir, Method::kCe);
  DeviceInfo dev;
  dev.backend = "host";
  CaseResult together;
  together.runs = {{0.002, 0.002}, {0.002, 0.002}, {0.002, 0.002}};
  together.h2d_s = together.d2h_s = {0.002, 0.002, 0.002};
  together.verified = true;
  CaseResult apart = together;
  apart.runs = {{0.004, 0.004}, {0.004, 0.004}, {0.004, 0.004}};  // union = the two spans end to end
  apart.h2d_s = apart.d2h_s = {0.0015, 0.0015, 0.0015};
  const auto ok = make_record(c, dev, "cpu", together);
  EXPECT_GT(ok.median_gbps, std::max(ok.h2d_gbps, ok.d2h_gbps));
  EXPECT_EQ(dma_table({ok}).find(" !"), std::string::npos);
  const auto bad = make_record(c, dev, "cpu", apart);
  EXPECT_LT(bad.median_gbps, bad.h2d_gbps);
  const auto table = dma_table({bad});
  EXPECT_NE(table.find(" !"), std::string::npos);
  EXPECT_NE(table.find("spans barely overlapped"), std::string::npos);
}

// --numa-node: where NUMA policies work, pages allocated under the binding land on the node and
// a node that does not exist is refused; where they do not, every node is refused.
TEST(NumaBinding, PagesLandOnTheBoundNodeOrTheOptionIsRefused) {
  if (!kvb::numa_supported()) {
    EXPECT_THROW(kvb::validate_numa_node(0, "--numa-node"), kvb::UsageError);
    return;
  }
  EXPECT_NO_THROW(kvb::validate_numa_node(0, "--numa-node"));
  EXPECT_THROW(kvb::validate_numa_node(4096, "--numa-node"), kvb::UsageError);
  EXPECT_THROW(kvb::validate_numa_node(-2, "--numa-node"), kvb::UsageError);
  std::vector<unsigned char> pages;
  {
    kvb::ScopedNumaBind bind(0, true);
    pages.assign(1 << 20, 1);  // allocated and first touched under the binding
  }
  EXPECT_EQ(kvb::numa_node_of(pages.data()), 0);
  EXPECT_EQ(kvb::numa_node_of(pages.data() + pages.size() - 1), 0);
}

// --with-compute on the host backend: the load's rates are measured and the slowdown is their
// ratio; the case is a separate identity, and the figures survive the JSON round trip.
TEST(WithCompute, HostBackendMeasuresTheLoadAloneAndDuringTheCopies) {
  std::string notice;
  auto backend = kvb::make_backend(kvb::BackendKind::kHost, 0, notice);
  kvb::TransferCase c;
  c.direction = kvb::Direction::kH2D;
  c.method = kvb::Method::kCe;
  c.block_bytes = 64 * 1024;
  c.blocks = 64;
  c.gpu_pool_blocks = c.host_pool_blocks = 256;
  c.with_compute = true;
  kvb::StoppingRule rule;
  rule.min_seconds = 0.05;
  rule.max_seconds = 0.3;
  rule.min_samples = 3;
  rule.warmups = 1;
  const auto rec = kvb::make_record(c, backend->info(), "cpu", backend->measure(c, rule));
  EXPECT_TRUE(rec.verified);
  EXPECT_GT(rec.compute_alone_per_s, 0);
  EXPECT_GT(rec.compute_during_per_s, 0);
  EXPECT_DOUBLE_EQ(rec.compute_slowdown, rec.compute_alone_per_s / rec.compute_during_per_s);
  EXPECT_NE(rec.id.find("/+compute"), std::string::npos);
  c.with_compute = false;
  EXPECT_NE(c.id(), rec.id);
  const auto back = kvb::dma_records_from_json(kvb::dma_json({rec}), "x.json");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].tcase.with_compute);
  EXPECT_DOUBLE_EQ(back[0].compute_slowdown, rec.compute_slowdown);
  EXPECT_EQ(back[0].compute_load, rec.compute_load);
}

// The link a GPU's figures are held against: sysfs when it has the PCIe link, the hardware
// table for NVLink-C2C superchips and for VMs that hide the link, and unknown otherwise.

// output/common/link_origin_text: where a link profile's figures came from, against lines written by hand.
#include <gtest/gtest.h>

#include "output/common/link_origin_text.hpp"

namespace kvb {
namespace {

LinkProfile fitted(bool host) {
  LinkProfile p;
  p.h2d = {.gbps = 55.14, .per_copy_s = 2.704e-6};
  p.d2h = {.gbps = 53.21, .per_copy_s = 2.16e-6};
  p.origin.figures = LinkFigures::kFitted;
  p.origin.file = "--link-profile 'h200.json'";
  p.origin.device = "NVIDIA H200";
  p.origin.method = "ce";
  p.origin.block_sizes = 9;
  p.origin.host_backend = host;
  return p;
}

TEST(LinkOriginText, AFittedProfileNamesItsFileDeviceMethodAndFit) {
  const auto p = fitted(false);
  const std::string expected =
      "measured: --link-profile 'h200.json' (NVIDIA H200, method ce, fitted t = t0 + bytes/B over 9 block "
      "sizes: "
      "h2d 55.1 GB/s + 2.70 us per block copy, d2h 53.2 GB/s + 2.16 us)";
  EXPECT_EQ(link_source_text(p), expected);
  EXPECT_EQ(reload_link_text(p, true), expected);  // size's reload words a given profile the same way
  EXPECT_EQ(link_warning_text(p), "");
}

TEST(LinkOriginText, TheHostBackendIsMarkedAndWarned) {
  const auto p = fitted(true);
  EXPECT_NE(
      link_source_text(p).find("d2h 53.2 GB/s + 2.16 us) [host backend: host-memory copies, not a GPU link]"),
      std::string::npos)
      << link_source_text(p);
  EXPECT_EQ(
      link_warning_text(p),
      "--link-profile 'h200.json' was measured by the host backend: its figures are host-memory copies, "
      "not a GPU link; expected a kvbench dma result from a GPU");
}

TEST(LinkOriginText, TheHardwareTableSaysMeasuredOrSoft) {
  LinkProfile measured;
  measured.h2d = {.gbps = 54.06, .per_copy_s = 2.724e-6};
  measured.d2h = {.gbps = 53.21, .per_copy_s = 2.160e-6};
  measured.origin.figures = LinkFigures::kTableMeasured;
  measured.origin.hardware = "h100";
  measured.origin.measured_by = "kvbench dma on an H100 (reports/baselines/x.json)";
  EXPECT_EQ(
      link_source_text(measured),
      "hardware table (h100), measured: h2d 54.1 GB/s + 2.72 us per block copy, d2h 53.2 GB/s + 2.16 us "
      "(kvbench dma on an H100)");
  EXPECT_EQ(reload_link_text(measured, false),
            "h100 h2d link measured by kvbench dma, kvbench dma on an H100");

  LinkProfile soft;
  soft.h2d = soft.d2h = {.gbps = 50, .per_copy_s = 3.5e-6};
  soft.origin.hardware = "b200";  // kDatasheet
  EXPECT_EQ(
      link_source_text(soft),
      "hardware table (b200): 50.0 GB/s per direction, 3.5 us per block copy (datasheet figures, soft: not "
      "measured)");
  EXPECT_EQ(
      reload_link_text(soft, false),
      "b200 practical pinned-copy figure from the hardware table (soft); `kvbench dma` measures this node");
}

}  // namespace
}  // namespace kvb

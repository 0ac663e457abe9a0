// output/common/occupancy_text: a shared GPU's words, checked against lines written by hand.
#include <gtest/gtest.h>

#include "output/common/occupancy_text.hpp"

namespace kvb {
namespace {

DeviceInfo h100(int index) {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = "NVIDIA H100 80GB HBM3";
  d.index = index;
  d.occupancy.queried = true;
  d.occupancy.source = "NVML";
  return d;
}

TEST(OccupancyText, NamesEachProcessAndTheBusyShare) {
  auto d = h100(1);
  d.occupancy.others = {{.pid = 4242, .name = "python3", .used_bytes = 38.5 * 1024 * 1024 * 1024},
                        {.pid = 77, .name = "", .used_bytes = -1}};
  d.occupancy.utilization_percent = 97;
  EXPECT_EQ(
      occupancy_text(d),
      "GPU 1 (NVIDIA H100 80GB HBM3) is shared: 2 other processes (python3 pid 4242, 38.5 GiB; a process "
      "pid 77), 97% busy before kvbench copied anything (per NVML); its figures are not the link's alone");
}

TEST(OccupancyText, BusyWithoutAVisibleProcess) {
  auto d = h100(0);
  d.occupancy.utilization_percent = 50;  // kBusyUtilizationPercent: busy from here
  EXPECT_EQ(
      occupancy_text(d),
      "GPU 0 (NVIDIA H100 80GB HBM3) is shared: 50% busy before kvbench copied anything (per NVML); its "
      "figures are not the link's alone");
}

TEST(OccupancyText, AnIdleDeviceHasNoWarning) {
  auto idle = h100(0);
  idle.occupancy.utilization_percent = 49;
  auto busy = h100(2);
  busy.occupancy.utilization_percent = 90;
  EXPECT_EQ(occupancy_text(idle), "");
  const auto lines = occupancy_warnings({idle, busy});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("GPU 2 (", 0), 0u) << lines[0];
}

}  // namespace
}  // namespace kvb

// backend/device_link: which host link a GPU sits on, from sysfs, else the hardware table.
#include "backend/device_link.hpp"

#include <gtest/gtest.h>

#include "catalog/hardware_spec.hpp"
#include "dma/sysfs_link.hpp"

TEST(DeviceLink, SysfsFirstThenTheHardwareTableThenUnknown) {
  const auto gen4 = kvb::parse_pcie_link("16.0 GT/s PCIe", "16");
  ASSERT_TRUE(gen4.has_value());
  const auto from_sysfs = kvb::resolve_device_link("NVIDIA H100 80GB HBM3", gen4);
  EXPECT_NEAR(from_sysfs.ceiling_gbps, 16.0 * 16 * 128 / 130 / 8, 1e-9);  // what the kernel reports wins
  EXPECT_NE(from_sysfs.description.find("(sysfs)"), std::string::npos);
  const auto vm = kvb::resolve_device_link("NVIDIA H100 80GB HBM3", std::nullopt);
  EXPECT_NEAR(vm.ceiling_gbps, 32.0 * 16 * 128 / 130 / 8, 1e-9);  // the table's Gen5 x16: 63.0 GB/s
  EXPECT_NE(vm.description.find("hardware table: h100"), std::string::npos);
  const auto c2c = kvb::resolve_device_link("NVIDIA GH200 480GB", std::nullopt);
  EXPECT_DOUBLE_EQ(c2c.ceiling_gbps, kvb::resolve_hardware("gh200").c2c_gbps_per_direction);
  EXPECT_NE(c2c.description.find("NVLink-C2C"), std::string::npos);
  const auto unknown = kvb::resolve_device_link("Tesla T4", std::nullopt);
  EXPECT_EQ(unknown.ceiling_gbps, 0);
}

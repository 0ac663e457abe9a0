#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/link_ceiling.hpp"
#include "core/units.hpp"

using namespace kvb;

TEST(ParseBytes, DecimalAndBinaryUnitsDiffer) {
  EXPECT_EQ(parse_bytes("2MB", "x").bytes, 2'000'000u);
  EXPECT_EQ(parse_bytes("2MiB", "x").bytes, 2u * 1024 * 1024);
  EXPECT_EQ(parse_bytes("4GB", "x").bytes, 4'000'000'000u);
  EXPECT_EQ(parse_bytes("4096", "x").bytes, 4096u);
  EXPECT_EQ(parse_bytes("512B", "x").bytes, 512u);
  EXPECT_EQ(parse_bytes("4kib", "x").bytes, 4096u);
  // 3.81 x 2^30 = 4,090,956,349.44 -> floor.
  EXPECT_EQ(parse_bytes("3.81GiB", "x").bytes, 4'090'956'349u);
  EXPECT_NE(parse_bytes("2MiB", "x").meaning.find("binary"), std::string::npos);
  EXPECT_NE(parse_bytes("2MB", "x").meaning.find("decimal"), std::string::npos);
}

TEST(ParseBytes, RejectsMalformedInputNamingIt) {
  for (const char* bad : {"", "abc", "-1", "2XB", "0", "0.1", "1.5", "4095.5B", "1e9", "1..2GB", "nanGB"}) {
    try {
      (void)parse_bytes(bad, "--block");
      FAIL() << "accepted " << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--block"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseTokenCount, FollowsVllmHumanReadableIntegers) {
  EXPECT_EQ(parse_token_count("131072", "x"), 131072);
  EXPECT_EQ(parse_token_count("128k", "x"), 128000);
  EXPECT_EQ(parse_token_count("128K", "x"), 131072);
  EXPECT_EQ(parse_token_count("1M", "x"), 1048576);
  EXPECT_EQ(parse_token_count("1m", "x"), 1000000);
  EXPECT_EQ(parse_token_count("25.6k", "x"), 25600);
  EXPECT_THROW((void)parse_token_count("0", "x"), UsageError);
  EXPECT_THROW((void)parse_token_count("-5", "x"), UsageError);
  EXPECT_THROW((void)parse_token_count("1.5", "x"), UsageError);
  EXPECT_THROW((void)parse_token_count("12q", "x"), UsageError);
}

TEST(ParseInts, RejectsTrailingJunkAndZero) {
  EXPECT_EQ(parse_positive_int("8", "x"), 8);
  EXPECT_THROW((void)parse_positive_int("8x", "x"), UsageError);
  EXPECT_THROW((void)parse_positive_int("0", "x"), UsageError);
  EXPECT_EQ(parse_positive_int("0", "x", true), 0);
  EXPECT_THROW((void)parse_real_in("1.5", "x", 0, 1), UsageError);
  EXPECT_DOUBLE_EQ(parse_real_in("0.9", "x", 0, 1), 0.9);
}

TEST(Format, CountsAndBytes) {
  EXPECT_EQ(format_count(31232), "31,232");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000000), "1,000,000");
  EXPECT_EQ(format_bytes_binary(2.0 * 1024 * 1024), "2.00 MiB");
}

TEST(LinkCeiling, PcieGen5x16Is63GBps) {
  // PCIe Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction.
  EXPECT_NEAR(pcie_ceiling_gbps(5, 16), 63.015, 0.01);
  EXPECT_NEAR(pcie_ceiling_gbps(4, 16), 31.5, 0.01);
  EXPECT_NEAR(pcie_ceiling_gbps(3, 16), 15.75, 0.01);
  EXPECT_THROW((void)pcie_ceiling_gbps(7, 16), UsageError);
  EXPECT_THROW((void)pcie_ceiling_gbps(5, 3), UsageError);
}

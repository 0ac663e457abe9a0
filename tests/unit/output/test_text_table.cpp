// Text tables: numbers right-aligned, text left-aligned (issue 34 §8: doctor's "busy" row, whose
// detail starts with "--root", was padded by 230 spaces as if it were a negative number).
#include <gtest/gtest.h>

#include <string>

#include "output/common/text_table.hpp"

namespace kvb {
namespace {

TEST(TextTable, NumbersAlignRightAndTextThatStartsWithDashesLeft) {
  TextTable t({"check", "detail"});
  t.add_row({"busy", "--root reads a recorded node"});
  t.add_row({"gain", "-12.5%"});
  t.add_row({"none", "-"});
  t.add_row({"long", "a detail wider than the others"});
  const auto out = t.render();
  EXPECT_NE(out.find("busy   --root reads a recorded node\n"), std::string::npos) << out;
  EXPECT_NE(out.find("gain                           -12.5%\n"), std::string::npos) << out;
  EXPECT_NE(out.find("none                                -\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace kvb

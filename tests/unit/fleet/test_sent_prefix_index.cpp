// The approximate prefix record (fleet/sent_prefix_index.hpp) on hand-built prompts.
#include <gtest/gtest.h>

#include "fleet/sent_prefix_index.hpp"

namespace kvb {
namespace {

TEST(SentPrefixIndex, MatchesTheLeadingBlocksItWasSentAndStopsAtTheFirstMiss) {
  SentPrefixIndex index(100);
  index.record({1, 2, 3});
  EXPECT_EQ(index.match({1, 2, 3, 4}), 3);
  EXPECT_EQ(index.match({1, 9, 3}), 1);  // 3 was sent, but not after 9: a prefix stops at a miss
  EXPECT_EQ(index.match({7, 1}), 0);
}

TEST(SentPrefixIndex, ForgetsTheLeastRecentlySentBeyondItsCapacity) {
  SentPrefixIndex index(3);
  index.record({1, 2});
  index.record({3, 4});  // 4 blocks in a record of 3: the oldest, 1, goes
  EXPECT_EQ(index.size(), 3);
  EXPECT_EQ(index.match({1}), 0);
  EXPECT_EQ(index.match({2}), 1);
  index.record({2});  // 2 sent again: now the most recent
  index.record({5});  // so 3 goes, not 2
  EXPECT_EQ(index.match({2}), 1);
  EXPECT_EQ(index.match({3}), 0);
}

TEST(SentPrefixIndex, NamesEach64TokenPrefixByItsLastSimulatedBlock) {
  // 16-token blocks: the 64-token prefixes end at blocks 3, 7, 11 (0-based); 200 tokens hold three.
  const std::vector<std::uint64_t> blocks{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
  EXPECT_EQ(sent_prefix_hashes(blocks, 200, 16), (std::vector<std::uint64_t>{13, 17, 21}));
  EXPECT_TRUE(sent_prefix_hashes(blocks, 63, 16).empty());  // no whole 64-token block
  EXPECT_EQ(sent_prefix_hashes(blocks, 200, 64), (std::vector<std::uint64_t>{10, 11, 12}));
}

}  // namespace
}  // namespace kvb

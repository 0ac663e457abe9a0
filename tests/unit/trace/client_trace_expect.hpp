#pragma once
// What the benchmark clients' trace tests check alike: the requests a reader gives against the
// fixture's figures worked out by hand, and the one-line error a bad file gets.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "trace/trace_reader.hpp"

namespace kvb::test {

struct ExpectedRequest {
  double arrival_s;
  std::int64_t prompt_tokens, output_tokens;
};

// Every request the reader gives, against `want` in order (arrival to 1e-6 s, lengths, one block
// per 512 prompt tokens begun); the reader then ends. The block ids seen, for reuse checks.
inline std::set<std::uint64_t> expect_requests(TraceReader& reader,
                                               const std::vector<ExpectedRequest>& want) {
  std::set<std::uint64_t> ids;
  TraceRequest r;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(reader.next(r)) << i;
    EXPECT_NEAR(r.arrival_s, want[i].arrival_s, 1e-6) << i;
    EXPECT_EQ(r.prompt_tokens, want[i].prompt_tokens) << i;
    EXPECT_EQ(r.output_tokens, want[i].output_tokens) << i;
    EXPECT_EQ(r.block_ids.size(), static_cast<std::size_t>((want[i].prompt_tokens + 511) / 512)) << i;
    ids.insert(r.block_ids.begin(), r.block_ids.end());
  }
  EXPECT_FALSE(reader.next(r));
  return ids;
}

// `text` written to a file of its own (the test's name and `name`: ctest runs tests in parallel) and read
// whole as a trace: the UsageError's text, or "no error".
inline std::string trace_error(const std::string& text, const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto path =
      (std::filesystem::temp_directory_path() / (std::string(test->name()) + "-" + name)).string();
  std::ofstream(path) << text;
  std::string what = "no error";
  try {
    TraceReader reader(path, TraceOptions{});
    TraceRequest r;
    while (reader.next(r)) {
    }
  } catch (const UsageError& e) {
    what = e.what();
  }
  std::filesystem::remove(path);
  return what;
}

}  // namespace kvb::test

// The Prometheus text reader (observe/prom_text.hpp): what it reads, hand-checked, and each kind
// of malformed line it refuses with the line's number.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/errors.hpp"
#include "observe/prom_text.hpp"

namespace kvb {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_prom_text(text, "dump.prom");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(PromText, ReadsSamplesLabelsHelpAndType) {
  const auto e = parse_prom_text(
      "# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.\n"
      "# TYPE vllm:prefix_cache_hits_total counter\n"
      "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"a \\\"b\\\" \\\\ c\\nd\"} 448000.0\n"
      "  # a free comment\n\n"
      "up 1 1712345678901\r\n"
      "x{le=\"+Inf\",} +Inf\n"
      "y NaN\n"
      "z -1.5e3\n",
      "dump.prom");
  ASSERT_EQ(e.samples.size(), 5u);
  EXPECT_EQ(e.samples[0].name, "vllm:prefix_cache_hits_total");
  ASSERT_EQ(e.samples[0].labels.size(), 2u);
  EXPECT_EQ(e.samples[0].labels[1].second, "a \"b\" \\ c\nd");
  EXPECT_EQ(e.samples[0].value, 448000.0);
  EXPECT_EQ(e.samples[1].value, 1.0);
  EXPECT_TRUE(std::isinf(e.samples[2].value));
  EXPECT_TRUE(std::isnan(e.samples[3].value));
  EXPECT_EQ(e.samples[4].value, -1500.0);
  const auto& family = e.families.at("vllm:prefix_cache_hits_total");
  EXPECT_EQ(family.type, "counter");
  EXPECT_EQ(family.help, "Prefix cache hits, in terms of number of cached tokens.");
}

TEST(PromText, CounterSumsTheTotalSamplesThatMatch) {
  const auto e = parse_prom_text(
      "vllm:kv_offload_total_bytes_total{engine=\"0\",transfer_type=\"GPU_to_CPU\"} 100\n"
      "vllm:kv_offload_total_bytes_total{engine=\"1\",transfer_type=\"GPU_to_CPU\"} 20\n"
      "vllm:kv_offload_total_bytes_total{engine=\"0\",transfer_type=\"CPU_to_GPU\"} 7\n"
      "vllm:kv_offload_total_bytes_created{engine=\"0\",transfer_type=\"CPU_to_GPU\"} 1.7e9\n"
      "lmcache:num_hit_tokens{worker=\"0\"} 3\n"
      "g{engine=\"0\"} 0.2\ng{engine=\"1\"} 0.6\n",
      "x");
  EXPECT_EQ(*prom_counter(e, "vllm:kv_offload_total_bytes", {{"transfer_type", "GPU_to_CPU"}}), 120.0);
  EXPECT_EQ(*prom_counter(e, "vllm:kv_offload_total_bytes"), 127.0);  // not the _created sample
  EXPECT_EQ(*prom_counter(e, "lmcache:num_hit_tokens"), 3.0);         // a client without _total
  EXPECT_FALSE(prom_counter(e, "vllm:kv_offload_store_bytes").has_value());
  EXPECT_DOUBLE_EQ(*prom_gauge_mean(e, "g"), 0.4);
  EXPECT_DOUBLE_EQ(*prom_gauge_sum(e, "g"), 0.8);
  EXPECT_TRUE(prom_has_prefix(e, "lmcache:"));
  EXPECT_FALSE(prom_has_prefix(e, "sglang:"));
}

TEST(PromText, RefusesWhatIsNotTheFormatNamingTheLine) {
  EXPECT_NE(refusal("ok 1\n<html><body>hi</body></html>\n").find("dump.prom line 2:"), std::string::npos);
  EXPECT_NE(refusal("a{b=\"c} 1\n").find("not closed"), std::string::npos);
  EXPECT_NE(refusal("a{b=c} 1\n").find("double quotes"), std::string::npos);
  EXPECT_NE(refusal("a{b=\"\\t\"} 1\n").find("escape"), std::string::npos);
  EXPECT_NE(refusal("a{b=\"1\",b=\"2\"} 1\n").find("twice"), std::string::npos);
  EXPECT_NE(refusal("a 1\na 2\n").find("appears twice"), std::string::npos);
  EXPECT_NE(refusal("a 0x10\n").find("not a sample value"), std::string::npos);
  EXPECT_NE(refusal("a 1e999\n").find("not a sample value"), std::string::npos);
  EXPECT_NE(refusal("a\n").find("not followed by a space"), std::string::npos);
  EXPECT_NE(refusal("a 1 2 3\n").find("text after"), std::string::npos);
  EXPECT_NE(refusal("a 1 12.5\n").find("timestamp"), std::string::npos);
  EXPECT_NE(refusal("# TYPE a countr\na 1\n").find("not a metric type"), std::string::npos);
  EXPECT_NE(refusal("# TYPE a counter\n# TYPE a gauge\na 1\n").find("second # TYPE"), std::string::npos);
  EXPECT_NE(refusal("9a 1\n").find("no metric name"), std::string::npos);
  EXPECT_NE(refusal(std::string("a 1\n\0", 5)).find("NUL"), std::string::npos);
  EXPECT_NE(refusal("# only comments\n\n").find("no metric samples"), std::string::npos);
  EXPECT_NE(refusal("").find("no metric samples"), std::string::npos);
}

}  // namespace
}  // namespace kvb

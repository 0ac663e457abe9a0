// kvbench/size/v1 read back beside its writer: a simulated recommendation's fields survive the trip.
#include <gtest/gtest.h>

#include "catalog/model_catalog.hpp"
#include "size/size_json.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {
namespace {

TEST(SizeJson, ASimulatedRecommendationReadsBackWithItsTraceCurve) {
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.max_model_len = 32768;
  auto s = compute_sizing(
      make_sizing_inputs(resolve_model("llama-3.1-8b", warnings), resolve_hardware("h100"), serve));
  TierRecommendation rec;
  rec.basis = "simulation";
  rec.objective = "balanced";
  rec.decided_by = "ttft-p99";
  rec.kv_offloading_size_gib = 64;
  rec.bound = "knee";
  rec.floor_gib = 54.5;
  rec.cap_gib = 143;
  TierCurvePoint p;
  p.kv_offloading_size_gib = 64;
  p.gpu_hit_rate = 0.25;
  p.cpu_hit_rate = 0.125;
  p.gain = 0.5;
  rec.curve = {p};
  rec.trace_curve = {{1.5, 0.1}, {64, 0.375}};
  rec.expected_error = "TTFT mean within 4.0%";
  s.recommendation = rec;
  const auto rows = size_rows_from_json(sizings_document({s}), "test");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].recommendation);
  const auto& v = *rows[0].recommendation;
  EXPECT_EQ(v.objective, "balanced");
  EXPECT_EQ(v.decided_by, "ttft-p99");
  ASSERT_EQ(v.curve.size(), 1u);
  EXPECT_DOUBLE_EQ(v.curve[0].gpu_hit_rate, 0.25);
  EXPECT_DOUBLE_EQ(v.curve[0].cpu_hit_rate, 0.125);
  EXPECT_EQ(v.trace_curve, rec.trace_curve);
  EXPECT_EQ(v.expected_error, rec.expected_error);
}

}  // namespace
}  // namespace kvb

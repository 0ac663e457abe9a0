// perf's facts in a result document: the expected error, the link and the time model's terms are
// written, read back whole and written again to the same JSON; bad names and numbers are refused.
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "output/common/expected_error_text.hpp"
#include "output/common/link_origin_text.hpp"
#include "output/common/time_model_text.hpp"
#include "perf/expected_error_json.hpp"
#include "perf/link_profile_json.hpp"
#include "perf/time_model_terms_json.hpp"

using namespace kvb;
using nlohmann::json;

namespace {

// Every field set, none to its default.
ExpectedError full_expected_error() {
  ExpectedError e;
  e.moe = true;
  e.weights = "fp8";
  e.ranks = 4;
  e.hardware = "h200";
  ScoredClass s;
  s.moe = true;
  s.weights = "fp8";
  s.ranks = 4;
  s.runs = 12;
  s.runs_described = "gpt-oss-120b, 8 QPS, vLLM 0.11";
  s.ttft_mean = 0.031;
  s.e2e_mean = 0.042;
  s.ttft_worst = 0.09;
  s.e2e_worst = 0.11;
  e.scored = {s};
  e.fleet = true;
  e.one_in_flight = true;
  OneInFlightClass one;
  one.moe = true;
  one.weights = "fp8";
  one.ranks = 4;
  one.runs = 3;
  one.runs_described = "TEASBench";
  one.tpot_error_min = -0.2;
  one.tpot_error_max = 0.05;
  e.at_one = {one};
  e.at_one_anywhere = one;
  e.at_one_anywhere.runs = 40;
  e.at_one_anywhere.ranks = 2;
  e.at_one_anywhere.tpot_error_min = -0.5;
  return e;
}

LinkProfile full_link() {
  LinkProfile p;
  p.origin.figures = LinkFigures::kFitted;
  p.origin.hardware = "h100";
  p.origin.measured_by = "kvbench dma (2026-01)";
  p.origin.file = "--link-profile 'dma.json'";
  p.origin.device = "NVIDIA H100 80GB HBM3";
  p.origin.method = "kernel";
  p.origin.block_sizes = 7;
  p.origin.host_backend = true;
  p.h2d = {.gbps = 52.5, .per_copy_s = 3.25e-6};
  p.d2h = {.gbps = 48.75, .per_copy_s = 4.5e-6};
  p.kernel_compute_slowdown = 1.25;
  p.slowdown_origin = SlowdownOrigin{.hardware = "h100", .file = "with-compute.json", .records = 9};
  return p;
}

TimeModelTerms full_terms() {
  TimeModelTerms t;
  t.linear_peak_tflops = 742.5;
  t.compute_efficiency = 0.55;
  t.gemm = {.peak_tflops = 989.5,
            .kernel = GemmKernel::kMachete,
            .dequant_efficiency = 0.75,
            .dequant_known = false};
  t.attention_peak_tflops = 989.5;
  t.attention_rate_differs = true;
  t.attention_efficiency = 0.4;
  t.gemm_half_tokens = 64;
  t.hbm_gbps = 3350;
  t.memory_efficiency = 0.8;
  t.activation_kib_per_token = 40.5;
  t.tp = 8;
  t.expert_ranks = 16;
  t.all_to_all = true;
  t.fabric_raw_gbps = 450;
  t.fabric_efficiency = 0.75;
  t.fabric_latency_us = 2.5;
  t.step_overhead_us = 450;
  t.request_overhead_ms = 12.5;
  t.moe_fixed_us = 300;
  t.moe_layer_fixed_us = 8.5;
  t.weight_dtype = "mxfp4";
  t.weight_gib_per_rank = 14.25;
  t.calibration = {.from = CalibrationFrom::kFile,
                   .hardware = "h100",
                   .fitted_to = "ground truth",
                   .file = "cal.yaml",
                   .measured = true,
                   .device = "H100",
                   .model = "llama-3.1-8b",
                   .runs = 17,
                   .text = "as worded"};
  return t;
}

}  // namespace

TEST(ExpectedErrorJson, EveryFieldRoundTrips) {
  const auto e = full_expected_error();
  const auto written = expected_error_to_json(e);
  const auto back = expected_error_from_json(written, "doc.json");
  EXPECT_EQ(expected_error_to_json(back).dump(), written.dump());
  EXPECT_TRUE(back.moe);
  EXPECT_EQ(back.hardware, "h200");
  ASSERT_EQ(back.scored.size(), 1u);
  EXPECT_EQ(back.scored[0], e.scored[0]);
  ASSERT_EQ(back.at_one.size(), 1u);
  EXPECT_DOUBLE_EQ(back.at_one[0].tpot_error_min, -0.2);
  EXPECT_EQ(back.at_one_anywhere.runs, 40);
  EXPECT_TRUE(back.recorded.empty());
}

TEST(ExpectedErrorJson, ReadBackIsWordedAsTheOriginal) {
  for (auto e : {full_expected_error(), ExpectedError{}}) {
    EXPECT_EQ(expected_error_text(expected_error_from_json(expected_error_to_json(e), "d")),
              expected_error_text(e));
    e.one_in_flight = false;  // the scored classes' words, not the one-in-flight ones
    EXPECT_EQ(expected_error_text(expected_error_from_json(expected_error_to_json(e), "d")),
              expected_error_text(e));
  }
}

TEST(ExpectedErrorJson, AnOlderDocumentsWordsReadAsRecordedAndWriteBackAsWritten) {
  const json words = "TTFT mean within 3.1%, E2E mean within 4.2% (...)";
  const auto e = expected_error_from_json(words, "old.json");
  EXPECT_EQ(e.recorded, words.get<std::string>());
  EXPECT_EQ(expected_error_text(e), words.get<std::string>());
  EXPECT_EQ(expected_error_to_json(e), words);
}

TEST(ExpectedErrorJson, OutOfRangeNumbersAndWrongTypesAreUsageErrors) {
  auto j = expected_error_to_json(full_expected_error());
  j["ranks"] = 0;
  EXPECT_THROW(expected_error_from_json(j, "d"), UsageError);
  j = expected_error_to_json(full_expected_error());
  j["scored"][0]["ttft_mean"] = -0.1;
  EXPECT_THROW(expected_error_from_json(j, "d"), UsageError);
  j = expected_error_to_json(full_expected_error());
  j["at_one_anywhere"]["tpot_error_min"] = -2;
  EXPECT_THROW(expected_error_from_json(j, "d"), UsageError);
  j = expected_error_to_json(full_expected_error());
  j["scored"] = 3;
  EXPECT_THROW(expected_error_from_json(j, "d"), UsageError);
  EXPECT_THROW(expected_error_from_json(json(5), "d"), UsageError);
}

TEST(LinkProfileJson, EveryFieldRoundTrips) {
  const auto p = full_link();
  const auto written = link_profile_to_json(p);
  const auto back = link_profile_from_json(written, "doc.json");
  EXPECT_EQ(link_profile_to_json(back).dump(), written.dump());
  EXPECT_EQ(written["origin"]["figures"], "fitted");
  EXPECT_EQ(back.origin.figures, LinkFigures::kFitted);
  EXPECT_EQ(back.origin.block_sizes, 7u);
  EXPECT_TRUE(back.origin.host_backend);
  EXPECT_DOUBLE_EQ(back.d2h.per_copy_s, 4.5e-6);
  ASSERT_TRUE(back.slowdown_origin);
  EXPECT_EQ(back.slowdown_origin->records, 9u);
  EXPECT_EQ(link_source_text(back), link_source_text(p));
}

TEST(LinkProfileJson, EachFiguresNameAndAnAbsentSlowdownOriginRoundTrip) {
  auto p = full_link();
  p.slowdown_origin.reset();
  for (const auto f : {LinkFigures::kDatasheet, LinkFigures::kTableMeasured, LinkFigures::kFitted}) {
    p.origin.figures = f;
    const auto written = link_profile_to_json(p);
    EXPECT_TRUE(written["slowdown_origin"].is_null());
    const auto back = link_profile_from_json(written, "d");
    EXPECT_EQ(back.origin.figures, f);
    EXPECT_FALSE(back.slowdown_origin);
    EXPECT_EQ(link_source_text(back), link_source_text(p));
  }
}

TEST(LinkProfileJson, AnUnknownFiguresNameIsAUsageErrorNamingWhereKeyValueAndNames) {
  auto j = link_profile_to_json(full_link());
  j["origin"]["figures"] = "guessed";
  try {
    link_profile_from_json(j, "doc.json");
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    for (const char* part : {"doc.json", "figures", "guessed", "datasheet", "table-measured", "fitted"}) {
      EXPECT_NE(m.find(part), std::string::npos) << m;
    }
  }
}

TEST(LinkProfileJson, OutOfRangeNumbersAreUsageErrors) {
  auto j = link_profile_to_json(full_link());
  j["h2d"]["gbps"] = -1;
  EXPECT_THROW(link_profile_from_json(j, "d"), UsageError);
  j = link_profile_to_json(full_link());
  j["d2h"]["per_copy_s"] = 5;
  EXPECT_THROW(link_profile_from_json(j, "d"), UsageError);
  j = link_profile_to_json(full_link());
  j["kernel_compute_slowdown"] = 1e9;
  EXPECT_THROW(link_profile_from_json(j, "d"), UsageError);
  j = link_profile_to_json(full_link());
  j["slowdown_origin"]["records"] = 1.5;
  EXPECT_THROW(link_profile_from_json(j, "d"), UsageError);
}

TEST(TimeModelTermsJson, EveryFieldRoundTrips) {
  const auto t = full_terms();
  const auto written = time_model_terms_to_json(t);
  const auto back = time_model_terms_from_json(written, "doc.json");
  EXPECT_EQ(time_model_terms_to_json(back).dump(), written.dump());
  EXPECT_EQ(written["gemm"]["kernel"], "machete");
  EXPECT_EQ(written["calibration"]["from"], "file");
  EXPECT_EQ(back.gemm.kernel, GemmKernel::kMachete);
  EXPECT_FALSE(back.gemm.dequant_known);
  ASSERT_TRUE(back.attention_efficiency);
  EXPECT_DOUBLE_EQ(*back.attention_efficiency, 0.4);
  EXPECT_EQ(back.expert_ranks, 16);
  EXPECT_EQ(back.calibration.runs, 17u);
  EXPECT_EQ(back.calibration.model, "llama-3.1-8b");
  EXPECT_EQ(time_model_text(back), time_model_text(t));
}

TEST(TimeModelTermsJson, AbsentAttentionEfficiencyIsNull) {
  auto t = full_terms();
  t.attention_efficiency.reset();
  const auto written = time_model_terms_to_json(t);
  EXPECT_TRUE(written["attention_efficiency"].is_null());
  EXPECT_FALSE(time_model_terms_from_json(written, "d").attention_efficiency);
}

TEST(TimeModelTermsJson, EveryKernelAndCalibrationOriginNameRoundTrips) {
  auto t = full_terms();
  for (const auto k :
       {GemmKernel::kNative, GemmKernel::kMarlin, GemmKernel::kMachete, GemmKernel::kWeightOnly}) {
    t.gemm.kernel = k;
    EXPECT_EQ(time_model_terms_from_json(time_model_terms_to_json(t), "d").gemm.kernel, k);
  }
  for (const auto f : {CalibrationFrom::kDefaults, CalibrationFrom::kHardwareTable, CalibrationFrom::kFile,
                       CalibrationFrom::kCalibrate, CalibrationFrom::kFromVllm, CalibrationFrom::kRecorded}) {
    t.calibration.from = f;
    const auto back = calibration_origin_from_json(calibration_origin_to_json(t.calibration), "d");
    EXPECT_EQ(back.from, f);
    EXPECT_EQ(calibration_origin_text(back), calibration_origin_text(t.calibration));
  }
}

TEST(TimeModelTermsJson, UnknownNamesAndOutOfRangeNumbersAreUsageErrors) {
  auto j = time_model_terms_to_json(full_terms());
  j["gemm"]["kernel"] = "cutlass";
  EXPECT_THROW(time_model_terms_from_json(j, "d"), UsageError);
  j = time_model_terms_to_json(full_terms());
  j["calibration"]["from"] = "guess";
  try {
    time_model_terms_from_json(j, "doc.json");
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    for (const char* part : {"doc.json", "from", "guess", "hardware-table", "from-vllm"}) {
      EXPECT_NE(m.find(part), std::string::npos) << m;
    }
  }
  j = time_model_terms_to_json(full_terms());
  j["compute_efficiency"] = 1.5;
  EXPECT_THROW(time_model_terms_from_json(j, "d"), UsageError);
  j = time_model_terms_to_json(full_terms());
  j["tp"] = 0;
  EXPECT_THROW(time_model_terms_from_json(j, "d"), UsageError);
  j = time_model_terms_to_json(full_terms());
  j["step_overhead_us"] = 2e6;
  EXPECT_THROW(time_model_terms_from_json(j, "d"), UsageError);
  j = time_model_terms_to_json(full_terms());
  j["calibration"]["runs"] = -1;
  EXPECT_THROW(time_model_terms_from_json(j, "d"), UsageError);
}

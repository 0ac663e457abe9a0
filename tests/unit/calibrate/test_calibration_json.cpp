// kvbench/calibrate/v1: every field of a calibration result written, read back and written again
// gives the same bytes (the report reads what calibrate wrote, nothing dropped on the way).
#include <gtest/gtest.h>

#include "calibrate/calibration_file.hpp"
#include "output/calibrate/calibrate_documents.hpp"

namespace kvb {
namespace {

CalibrationPoint point(const std::string& regime, bool skipped) {
  CalibrationPoint p;
  p.regime = regime;
  p.tokens = regime == "prefill" ? 4096 : 64;
  p.context = regime == "prefill" ? 0 : 1024;
  p.layer_gemm_s = 0.00125;
  p.attention_s = regime == "prefill" ? 0.00025 : 0;
  p.elementwise_s = 0.0000625;
  p.lm_head_s = 0.0005;
  p.forward_s = 0.05;
  p.gemm_tflops = 650.5;
  p.flops = 1.5e13;
  p.bytes = 1.6e10;
  p.compute_efficiency = 0.75;
  p.memory_efficiency = 0.0625;
  p.bound = regime == "prefill" ? "compute" : "memory";
  p.predicted_s = 0.049;
  p.spread = 0.03125;
  p.weight_sets = 3;
  p.skipped = skipped ? "the weights of one layer do not fit twice" : "";
  return p;
}

Calibration calibration(double scale, const std::string& source) {
  Calibration c;
  c.compute_efficiency = 0.75 * scale;
  c.memory_efficiency = 0.8 * scale;
  c.step_overhead_s = 0.00019;
  c.attention_efficiency = 0.57;
  c.request_overhead_s = 0.0103;
  c.load_efficiency = 0.88;
  c.gemm_half_tokens = 250;
  c.origin.from = CalibrationFrom::kRecorded;
  c.origin.text = source;
  return c;
}

TEST(CalibrationJson, EveryFieldRoundTripsByteForByte) {
  CalibrationResult r;
  r.device = "NVIDIA H100 80GB HBM3";
  r.runtime = "cuBLAS 12.8";
  r.server.model = "llama-3.1-8b";
  r.server.hf_id = "meta-llama/Llama-3.1-8B-Instruct";
  r.server.hardware = "h100";
  r.server.tensor_parallel_size = 2;
  r.server.weight_dtype = "bf16";
  r.server.kv_cache_dtype = "auto (bf16)";
  r.ffn_width = {.total = 14336, .derived = false, .params_b = 8};
  r.peak_tflops = 989;
  r.hbm_peak_gbps = 3350;
  r.hbm_copy_gbps = 2900.5;
  r.hbm_copy_bytes = 1ULL << 30;
  r.points = {point("prefill", false), point("decode", false), point("prefill", true)};
  r.fitted = calibration(1.0, "kvbench calibrate on NVIDIA H100 80GB HBM3 (llama-3.1-8b)");
  r.reference = calibration(0.9, "the hardware file's fit");
  r.step_overhead_source = "from h100's calibration";
  r.notes = {"GEMMs: cuBLAS 12.8", "FFN width: intermediate_size 14336"};
  const auto written = calibration_json(r).dump();
  const auto read = calibration_from_json(nlohmann::json::parse(written), "cal.json");
  EXPECT_EQ(calibration_json(read).dump(), written);
  // The server timed, at the top level under the keys calibrate always wrote.
  EXPECT_EQ(read.server, r.server);
  EXPECT_EQ(nlohmann::json::parse(written).at("tensor_parallel_size"), 2);
}

// A document from before the server table (model, hardware and TP only) reads with the others'
// defaults; one without its model is refused.
TEST(CalibrationJson, AnOlderDocumentReadsItsServerWithTheDefaults) {
  CalibrationResult r;
  r.server.model = "qwen3-8b";
  r.server.hardware = "l40s";
  r.server.tensor_parallel_size = 4;
  r.points = {point("prefill", false)};
  r.fitted = calibration(1.0, "fit");
  r.reference = calibration(0.9, "ref");
  r.peak_tflops = 362;
  r.hbm_peak_gbps = 864;
  auto doc = calibration_json(r);
  for (const char* key :
       {"hf_id", "pipeline_parallel_size", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
        "weight_dtype", "kv_cache_dtype", "block_size", "kv_offloading_backend"})
    doc.erase(key);
  const auto read = calibration_from_json(doc, "old.json");
  EXPECT_EQ(read.server.model, "qwen3-8b");
  EXPECT_EQ(read.server.hardware, "l40s");
  EXPECT_EQ(read.server.tensor_parallel_size, 4);
  EXPECT_EQ(read.server.block_size, 16);
  EXPECT_EQ(read.server.weight_dtype, "");
  doc.erase("model");
  EXPECT_ANY_THROW((void)calibration_from_json(doc, "old.json"));
}

}  // namespace
}  // namespace kvb

// kvbench calibrate without a GPU: the layer shapes against published parameter counts, the fit,
// and the whole run against a simulated GPU (a roofline with known efficiencies) whose answer is
// known: the fit must find those efficiencies again, less the modelled elementwise share.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "calibrate/calibration_file.hpp"
#include "calibrate/calibration_fit.hpp"
#include "calibrate/calibration_run.hpp"
#include "calibrate/operator_plan.hpp"
#include "core/errors.hpp"
#include "core/yaml_reader.hpp"
#include "output/calibrate/calibrate_documents.hpp"
#include "output/calibrate/calibrate_output.hpp"
#include "perf/calibration.hpp"
#include "test_helpers.hpp"

using namespace kvb;

namespace {

// A GPU whose every GEMM runs at `compute` x peak or `memory` x HBM peak, whichever is slower,
// and whose copies run at `copy` x HBM peak. Records what it was asked.
class RooflineGpu final : public OperatorTimer {
 public:
  RooflineGpu(const HardwareSpec& hw, double compute, double memory, double copy = 0.9)
      : peak_(hw.bf16_tflops * 1e12),
        hbm_(hw.hbm_bandwidth_gbps * 1e9),
        compute_(compute),
        memory_(memory),
        copy_(copy) {}
  std::string device_name() const override { return "roofline GPU"; }
  std::string runtime() const override { return "test"; }
  std::uint64_t free_bytes() override { return free_; }
  std::uint64_t l2_bytes() const override { return 50ull << 20; }
  OperatorTiming time_sequence(const std::vector<GemmOp>& ops, int sets, int reps) override {
    double t = 0;
    for (const auto& op : ops) t += std::max(op.flops() / (peak_ * compute_), op.bytes() / (hbm_ * memory_));
    max_set_bytes_ = std::max(max_set_bytes_, sets * operand_bytes(ops));
    min_sets_ = std::min(min_sets_, sets);
    OperatorTiming r;
    r.seconds = t;
    r.repetitions = reps;
    r.weight_sets = sets;
    return r;
  }
  double time_device_copy(std::uint64_t bytes, int) override {
    return 2.0 * static_cast<double>(bytes) / (hbm_ * copy_);
  }
  std::uint64_t free_ = 80ull << 30;
  double max_set_bytes_ = 0;
  int min_sets_ = 1 << 30;

 private:
  double peak_, hbm_, compute_, memory_, copy_;
};

CalibrationRequest request(const std::string& model, const std::string& hw = "h100") {
  CalibrationRequest r;
  r.model = test::model(model);
  r.hw = resolve_hardware(hw);
  r.step_overhead_us = 420;
  r.step_overhead_source = "test";
  return r;
}

}  // namespace

// Two published figures of each dense catalog model agree through the layer shapes: config.json's
// widths give back the parameter count on its model card within 2%.
TEST(CalibrateShapes, CatalogWidthsGiveThePublishedParameterCounts) {
  int checked = 0;
  for (const auto& m : model_catalog()) {
    // A mixture of experts' intermediate_size is one expert's (test_catalog.cpp checks Mixtral by hand).
    if (m.intermediate_size == 0 || m.num_experts > 0) continue;
    const double h = m.hidden_size, d = m.head_dim;
    const double per_layer =
        h * d * (2.0 * m.num_attention_heads + 2.0 * m.num_kv_heads) + 3.0 * h * m.intermediate_size;
    const double embeddings = static_cast<double>(m.vocab_size) * h * (m.tie_word_embeddings ? 1 : 2);
    const double params = per_layer * m.num_hidden_layers + embeddings;
    EXPECT_NEAR(params / (m.params_total_b * 1e9), 1.0, 0.02) << m.name;
    ++checked;
  }
  EXPECT_GE(checked, 7);
}

// Llama-3.1-8B: the timed GEMMs of 32 layers plus the LM head do 2 FLOPs per multiply-add over
// every weight but the input embedding (8.03e9 - 128,256 x 4,096 = 7.505e9 parameters).
TEST(CalibrateShapes, OneTokenThroughEveryLayerIsTwoFlopsPerWeight) {
  const auto s = layer_shapes(test::model("llama-3.1-8b"), 1);
  EXPECT_EQ(s.q_width, 4096);
  EXPECT_EQ(s.kv_width, 1024);
  EXPECT_EQ(s.ffn, 14336);
  const double flops = 32 * operand_flops(linear_layer_ops(s, 1)) + lm_head_op(s, 1).flops();
  EXPECT_NEAR(flops / (2 * 7.505e9), 1.0, 0.01);
}

TEST(CalibrateShapes, TensorParallelRanksGetTheirShare) {
  const auto s = layer_shapes(test::model("llama-3.1-70b"), 8);
  EXPECT_EQ(s.heads, 8);      // 64 / 8
  EXPECT_EQ(s.kv_heads, 1);   // 8 / 8
  EXPECT_EQ(s.ffn, 3584);     // 28,672 / 8
  EXPECT_EQ(s.vocab, 16032);  // 128,256 / 8
}

TEST(CalibrateShapes, FfnWidthDerivedFromParametersWhenNotStated) {
  auto m = test::model("llama-3.1-8b");
  m.intermediate_size = 0;
  const auto s = layer_shapes(m, 1);
  EXPECT_EQ(s.ffn, 14336);
  EXPECT_TRUE(s.ffn_width.derived);
  EXPECT_EQ(s.ffn_width.total, 14336);
}

TEST(CalibrateShapes, RefusesWhatItCannotTime) {
  EXPECT_THROW(layer_shapes(test::model("deepseek-v3"), 8), UsageError);   // MoE + MLA
  EXPECT_THROW(layer_shapes(test::model("gpt-oss-120b"), 1), UsageError);  // MoE + sliding window
  EXPECT_THROW(layer_shapes(test::model("llama-3.1-8b"), 3), UsageError);  // 32 heads over 3 ranks
}

// Decode attention reads each sequence's K and V once: Llama-3.1-8B has 8 KV heads of 128, so
// 64 sequences of 1,023 keys plus the new token read 64 x 1,024 x (1,024 x 2 bytes) x 2 (K and V).
TEST(CalibrateShapes, DecodeAttentionReadsTheKvCacheOnce) {
  const auto s = layer_shapes(test::model("llama-3.1-8b"), 1);
  EXPECT_DOUBLE_EQ(decode_attention_bytes(s, 64, 1023), 64.0 * 1024 * 1024 * 2 * 2);
  EXPECT_DOUBLE_EQ(decode_attention_bytes(s, 64, 1023), 268435456.0);
}

TEST(CalibrateFit, EqualPointsGiveTheirValueAndSpreadPointsTheLeastSquaresOne) {
  EXPECT_DOUBLE_EQ(fit_efficiency({0.6, 0.6, 0.6}), 0.6);
  // a = {0.5, 1.0}: (0.25 + 1) / 1.5
  EXPECT_NEAR(fit_efficiency({0.5, 1.0}), 0.8333333, 1e-6);
  EXPECT_EQ(fit_efficiency({}), 0.0);
}

// The simulated GPU runs GEMMs at 70% of peak FLOP/s and streams HBM (GEMM operands and copies
// alike) at 80% of its peak. The fit counts the time model's FLOPs and bytes over a forward that
// also holds modelled attention and elementwise work, so it finds a little less than the GEMMs' own
// figures, never more than 5% above them.
TEST(CalibrateRun, FindsTheSimulatedGpusEfficiencies) {
  const auto r = request("llama-3.1-8b");
  RooflineGpu gpu(r.hw, 0.70, 0.80, 0.80);
  const auto out = run_calibration(gpu, r);
  EXPECT_NEAR(out.fitted.compute_efficiency, 0.70, 0.07);
  EXPECT_LE(out.fitted.compute_efficiency, 0.70 * 1.05);
  EXPECT_NEAR(out.fitted.memory_efficiency, 0.80, 0.08);
  EXPECT_LE(out.fitted.memory_efficiency, 0.80 * 1.05);
  EXPECT_NEAR(out.hbm_copy_gbps, 0.8 * r.hw.hbm_bandwidth_gbps, 1.0);
  EXPECT_DOUBLE_EQ(out.fitted.step_overhead_s, 420e-6);
  ASSERT_EQ(out.points.size(), 8u);
  for (const auto& p : out.points) {
    EXPECT_TRUE(p.skipped.empty());
    EXPECT_EQ(p.bound, p.regime == "prefill" ? "compute" : "memory") << p.regime << " " << p.tokens;
    EXPECT_GT(p.predicted_s, 0);
  }
  // The server timed: the catalog's model and GPU, bf16 weights, its default KV cache, no batch limits.
  EXPECT_EQ(out.server.model, "llama-3.1-8b");
  EXPECT_EQ(out.server.hf_id, r.model.hf_id);
  EXPECT_EQ(out.server.hardware, "h100");
  EXPECT_EQ(out.server.tensor_parallel_size, 1);
  EXPECT_EQ(out.server.weight_dtype, "bf16");
  EXPECT_EQ(out.server.kv_cache_dtype, "auto (bf16)");
  EXPECT_EQ(out.server.block_size, 16);
  EXPECT_EQ(out.server.max_num_seqs, 0);
  // A GPU twice as fast in compute halves the prefill forward's GEMM share.
  RooflineGpu slower(r.hw, 0.35, 0.80, 0.80);
  const auto half = run_calibration(slower, r);
  EXPECT_NEAR(half.fitted.compute_efficiency / out.fitted.compute_efficiency, 0.5, 0.05);
}

// Decode attention is modelled, not timed: a batch-64 point's attention is its KV reads at the
// measured copy rate (h100: 3,350 GB/s x 0.9), 268,435,456 B / 3,015 GB/s = 89.0 us per layer.
TEST(CalibrateRun, DecodeAttentionIsItsKvReadAtTheCopyRate) {
  auto r = request("llama-3.1-8b");
  r.prefill_tokens = {8192};
  r.decode_batches = {64};
  r.decode_context = 1023;
  RooflineGpu gpu(r.hw, 0.7, 0.8);
  const auto out = run_calibration(gpu, r);
  const auto& p = out.points.back();
  ASSERT_EQ(p.regime, "decode");
  EXPECT_NEAR(p.attention_s, 268435456.0 / (0.9 * 3350e9), 1e-9);
  EXPECT_NEAR(p.forward_s, 32 * (p.layer_gemm_s + p.attention_s + p.elementwise_s) + p.lm_head_s, 1e-12);
}

TEST(CalibrateRun, CyclesEnoughWeightSetsToMissTheL2) {
  auto r = request("llama-3.2-1b");
  r.prefill_tokens = {8192};
  r.decode_batches = {1};
  RooflineGpu gpu(r.hw, 0.7, 0.8);
  run_calibration(gpu, r);
  // Every timed pass streamed at least four L2s (200 MiB) of operands.
  EXPECT_GE(gpu.max_set_bytes_, 4.0 * (50 << 20));
}

TEST(CalibrateRun, SkipsPointsThatDoNotFitAndSaysSo) {
  auto r = request("llama-3.1-8b");
  RooflineGpu gpu(r.hw, 0.7, 0.8);
  gpu.free_ = 3ull << 30;  // 2 GiB after the reserve: 32K tokens' operands (about 5 GiB) do not fit
  const auto out = run_calibration(gpu, r);
  const auto big = std::find_if(out.points.begin(), out.points.end(),
                                [](const CalibrationPoint& p) { return p.tokens == 32768; });
  ASSERT_NE(big, out.points.end());
  EXPECT_NE(big->skipped.find("GiB free"), std::string::npos) << big->skipped;
  EXPECT_GT(out.fitted.compute_efficiency, 0);
}

TEST(CalibrateRun, FasterThanThePeakNamesTheHardwareFlag) {
  const auto r = request("llama-3.1-8b", "h100");
  RooflineGpu impossible(r.hw, 1.5, 0.8);
  try {
    run_calibration(impossible, r);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--hw h100"), std::string::npos) << e.what();
  }
}

TEST(CalibrateRun, NeedsAComputeBoundAndAMemoryBoundPoint) {
  auto r = request("llama-3.1-8b");
  r.prefill_tokens = {1};
  RooflineGpu gpu(r.hw, 0.7, 0.8);
  EXPECT_THROW(run_calibration(gpu, r), UsageError);
  r = request("llama-3.1-8b");
  r.decode_batches = {4096};
  r.decode_context = 16;
  EXPECT_THROW(run_calibration(gpu, r), UsageError);
}

// The file calibrate writes is one simulate and size read: the same three figures back.
TEST(CalibrateFile, TheWrittenFileReadsBack) {
  const auto r = request("llama-3.1-8b");
  RooflineGpu gpu(r.hw, 0.70, 0.80);
  const auto out = run_calibration(gpu, r);
  const auto text = calibration_yaml(out, "2026-11-23");
  const auto back = parse_calibration(YamlObject::parse(text, "calibration.yaml"), "calibration.yaml");
  EXPECT_NEAR(back.compute_efficiency, out.fitted.compute_efficiency, 1e-3);
  EXPECT_NEAR(back.memory_efficiency, out.fitted.memory_efficiency, 1e-3);
  EXPECT_NEAR(back.step_overhead_s, 420e-6, 1e-9);
  const auto doc = YamlObject::parse(text, "calibration.yaml").object("measured");
  EXPECT_EQ(doc.str("schema"), "kvbench/calibrate/v1");
  EXPECT_EQ(calibration_json(out).at("points").size(), 8u);
}

TEST(CalibrateFile, TextShowsEveryPointTheFitAndWhatWasModelled) {
  const auto r = request("llama-3.1-8b");
  RooflineGpu gpu(r.hw, 0.70, 0.80);
  auto out = run_calibration(gpu, r);
  out.notes = calibration_run_notes(out);  // worded as cmd_calibrate words them
  const auto text = calibration_text(out);
  EXPECT_NE(text.find("32768 tokens"), std::string::npos);
  EXPECT_NE(text.find("batch 256 @ 1024"), std::string::npos);
  EXPECT_NE(text.find(fmt::format("fitted: compute-efficiency {:.3f}", out.fitted.compute_efficiency)),
            std::string::npos);
  EXPECT_NE(text.find("modelled, not timed"), std::string::npos);
  // Beside the fit, what runs use without it: h100's default (fitted to real vLLM servers).
  const auto ref = default_calibration(r.hw);
  EXPECT_NE(
      text.find(fmt::format("without this file runs use: compute-efficiency {:.3f}, memory-efficiency {:.3f}",
                            ref.compute_efficiency, ref.memory_efficiency)),
      std::string::npos)
      << text;
  if (std::getenv("KVBENCH_SHOW")) std::fputs(text.c_str(), stdout);
}

// kvbench report reads the JSON calibrate prints: the same figures back (to the 4 significant
// digits written), skipped points kept, and efficiencies outside (0, 1] refused.
TEST(CalibrateFile, TheJsonReadsBackForTheReport) {
  const auto r = request("llama-3.1-8b");
  RooflineGpu gpu(r.hw, 0.70, 0.80);
  gpu.free_ = 3ull << 30;  // the 32K point is skipped
  const auto out = run_calibration(gpu, r);
  const auto back = calibration_from_json(calibration_json(out), "cal.json");
  EXPECT_EQ(back.device, out.device);
  EXPECT_NEAR(back.fitted.compute_efficiency, out.fitted.compute_efficiency, 1e-3);
  EXPECT_NEAR(back.reference.memory_efficiency, default_calibration(r.hw).memory_efficiency, 1e-12);
  ASSERT_EQ(back.points.size(), out.points.size());
  for (std::size_t i = 0; i < out.points.size(); ++i) {
    EXPECT_EQ(back.points[i].skipped, out.points[i].skipped);
    EXPECT_NEAR(back.points[i].forward_s, out.points[i].forward_s, 1e-3 * out.points[i].forward_s);
  }
  auto bad = calibration_json(out);
  bad["calibration"]["compute_efficiency"] = 1.5;
  EXPECT_THROW(calibration_from_json(bad, "cal.json"), UsageError);
}

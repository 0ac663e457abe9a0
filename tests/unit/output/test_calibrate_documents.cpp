// output/calibrate/calibrate_documents: a calibration's notes worded from its facts, against lines
// written by hand.
#include <gtest/gtest.h>

#include "output/calibrate/calibrate_documents.hpp"

namespace kvb {
namespace {

TEST(CalibrationRunNotes, SayTheLibraryTheFfnWidthsSourceAndTheOverheads) {
  CalibrationResult r;
  r.runtime = "cuBLAS 12.8";
  r.ffn_width = {.total = 14336, .derived = true, .params_b = 8};
  r.step_overhead_source = "--step-overhead-us";
  const auto notes = calibration_run_notes(r);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], "GEMMs: cuBLAS 12.8, bf16 in and out, fp32 accumulation, PyTorch's linear layout");
  EXPECT_EQ(notes[1], "FFN width: 14336 derived from 8B parameters (no intermediate_size in the catalog)");
  EXPECT_EQ(notes[2].rfind("modelled, not timed: prefill attention", 0), 0u) << notes[2];
  EXPECT_EQ(notes[3], "step overhead (not measurable from operators): --step-overhead-us");
  r.ffn_width = {.total = 28672, .derived = false, .params_b = 70};
  EXPECT_EQ(calibration_run_notes(r)[1], "FFN width: intermediate_size 28672 (config.json)");
}

}  // namespace
}  // namespace kvb

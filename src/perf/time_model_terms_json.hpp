#pragma once
// The step time model's terms (perf/step_time_model.hpp's TimeModelTerms) and a calibration's
// origin as facts in a result document, read back whole, so that output/common/time_model_text
// words a read-back document as it words a live run.
#include <nlohmann/json.hpp>
#include <string>

#include "perf/calibration.hpp"
#include "perf/step_time_model.hpp"

namespace kvb {

// {"linear_peak_tflops": 989, "compute_efficiency": 0.5, "gemm": {"peak_tflops": 989, "kernel":
//  "native", "dequant_efficiency": 1, "dequant_known": true}, "attention_peak_tflops": 989,
//  "attention_rate_differs": false, "attention_efficiency": null, "gemm_half_tokens": 0, "hbm_gbps":
//  3350, "memory_efficiency": 0.75, "activation_kib_per_token": 40, "tp": 1, "expert_ranks": 0,
//  "all_to_all": false, "fabric_raw_gbps": 450, "fabric_efficiency": 0.8, "fabric_latency_us": 2,
//  "step_overhead_us": 500, "request_overhead_ms": 0, "moe_fixed_us": 0, "moe_layer_fixed_us": 0,
//  "weight_dtype": "bf16", "weight_gib_per_rank": 14.96, "calibration": {<calibration_origin_to_json>}}
// gemm.kernel: "native", "marlin", "machete" or "weight-only".
nlohmann::json time_model_terms_to_json(const TimeModelTerms& t);
// What `time_model_terms_to_json` wrote. UsageError naming `where` and the field for a missing or
// mistyped field, a number out of its range, or an enum name kvbench does not write.
TimeModelTerms time_model_terms_from_json(const nlohmann::json& j, const std::string& where);

// {"from": "file", "hardware": "", "fitted_to": "", "file": "cal.yaml", "measured": true, "device":
//  "H100", "model": "llama-3.1-8b", "runs": 0, "text": ""}; from: "defaults", "hardware-table",
// "file", "calibrate", "from-vllm" or "recorded".
nlohmann::json calibration_origin_to_json(const CalibrationOrigin& o);
CalibrationOrigin calibration_origin_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kvb

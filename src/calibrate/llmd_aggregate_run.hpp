#pragma once
// An llm-d-benchmark report (trace/llmd_report) as a run `calibrate --from-vllm` fits to. The report
// holds a run's aggregates, not its requests, so the run is built from them and says so: its
// completed requests (total less failures and incomplete ones), each at the mean input and output
// lengths and answering at the mean TTFT and mean request latency, arriving as a Poisson process at
// the load's rate_qps (seed 1). The fit compares means, which such a run keeps; the spread of
// lengths is lost, so a per-request file (inference-perf's, GuideLLM's, AIPerf's) fits better.
#include <optional>
#include <string>

#include "calibrate/vllm_results.hpp"

namespace kvb {

// The run from a report's text (YAML, or JSON, which is YAML too); UsageError naming the file and
// field for a report that lacks what the run needs (a finite rate_qps, the mean lengths, TTFT and
// request latency, at least one completed request).
VllmRun llmd_aggregate_run(const std::string& path, const std::string& text);

// The run where `text` is a YAML llm-d-benchmark report; nullopt where it is none (a JSON report is
// found by client_formats(), which has the document parsed already).
std::optional<VllmRun> llmd_yaml_run(const std::string& path, const std::string& text);

}  // namespace kvb

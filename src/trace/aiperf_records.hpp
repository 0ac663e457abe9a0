#pragma once
// NVIDIA AIPerf's per-request export, profile_export.jsonl: one MetricRecordInfo per line,
// {"metadata": {...}, "metrics": {"<tag>": {"value", "unit"}, ...}, "error": {...} | null}, as
// defined in github.com/ai-dynamo/aiperf src/aiperf/common/models/record_models.py (classes
// MetricRecordInfo, MetricRecordMetadata, MetricValue; read at commit f86c6c0d6aad). Read here:
//  * metadata.request_start_ns: the request's wall-clock start (time.time_ns()), as the arrival;
//    metadata.timestamp_ns where an older export has no request_start_ns;
//  * metrics.input_sequence_length and metrics.output_sequence_length (unit "tokens": the tags of
//    InputSequenceLengthMetric and OutputSequenceLengthMetric under src/aiperf/metrics/);
//  * metrics.time_to_first_token and metrics.request_latency, the latencies calibrate fits to:
//    TTFTMetric (src/aiperf/metrics/types/ttft_metric.py, commit 58028d5ba1cb: first content
//    response minus the request's start, streamed requests only) and RequestLatencyMetric
//    (request_latency_metric.py, commit 4f7ccffdf964: last content response minus the start), both
//    kept in ns and exported in their display unit, ms, with the unit's tag beside the value
//    (MetricRecordDict.to_display_dict in src/aiperf/metrics/metric_dicts.py, commit 0fec57a67268;
//    the tags "ns", "us", "ms", "sec" of MetricTimeUnit in src/aiperf/common/enums/metric_enums.py).
// No prefix hash ids: the export records lengths and times, not which prompts share a prefix.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kvb {

// A JSON record of this shape: an object holding "metadata" and "metrics" objects.
bool is_aiperf_record(const nlohmann::json& j);

struct AiperfRecord {
  std::int64_t start_ns = 0;  // wall clock, ns since the epoch
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  // In seconds; nullopt where the record has no such metric (TTFT is measured on streamed requests only).
  std::optional<double> ttft_s, e2e_s;
};

// The record's start, lengths and latencies; nullopt for a failed request (a non-null "error"), whose
// lengths AIPerf does not measure. UsageError "<where>: '<field>' ..." for a missing or ill-typed field
// (a latency may be missing; one present must be a number in a time unit, the end not before the first
// token).
std::optional<AiperfRecord> aiperf_record(const nlohmann::json& j, const std::string& where);

// An AIPerf export is read whole to put it in start order (records are written as results are
// processed, not as requests start): at most this many records.
inline constexpr std::int64_t kMaxAiperfRecords = 10'000'000;

}  // namespace kvb

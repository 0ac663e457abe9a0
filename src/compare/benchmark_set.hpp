#pragma once
// What `kvbench compare` compares: named entries, each with samples where bigger is better.
// Read from kvbench dma JSON (GB/s per transfer) or Google Benchmark JSON with repetitions
// (runs per second of each repetition), so one statistic serves both.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dma/transfer_backend.hpp"

namespace kvb {

struct BenchmarkEntry {
  std::string key;    // identity: equal keys are the same measurement
  std::string label;  // for people: "cuda NVIDIA H100 / ce h2d 2 MiB"
  std::string unit;   // of the samples: "GB/s" or "runs/s"
  std::vector<double> samples;
  bool waived = false;
};

struct BenchmarkSet {
  std::string origin;   // the file, for messages
  std::string kind;     // "kvbench dma" or "Google Benchmark"
  std::string setting;  // what ran it: devices for dma, the host for Google Benchmark
  std::vector<BenchmarkEntry> entries;
  // dma: devices another process shared while they were measured, one each.
  std::vector<DeviceInfo> disturbed;
};

// A run measured on a shared GPU: a regression is not called between such runs (cmd_compare
// refuses it unless --allow-disturbed, worded by output/common/occupancy_text).
struct DisturbedRun {
  std::string origin;  // the file
  DeviceInfo device;
};
std::optional<DisturbedRun> first_disturbed(const BenchmarkSet& base, const BenchmarkSet& head);

// Throws UsageError naming `origin` for malformed JSON, a schema that is neither, or an identity
// that occurs twice.
BenchmarkSet benchmark_set_from_json(const nlohmann::json& doc, const std::string& origin);

// Reads and parses the file; UsageError naming it when unreadable or not JSON.
BenchmarkSet load_benchmark_set(const std::string& path);

// The identity `kvbench compare` matches dma records by.
std::string dma_identity(const std::string& backend, const std::string& device, const std::string& method,
                         const std::string& direction, std::uint64_t block_bytes, const std::string& layout,
                         int layers, const std::string& host_mem);

}  // namespace kvb

#pragma once
// What a report is drawn from: kvbench result documents (dma, simulate, size), read from files
// or produced by the default assessment, checked once here so the sections only format.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "dma/dma_record.hpp"

namespace kvb {

struct SimPointView {
  std::vector<std::pair<std::string, std::string>> params;  // sweep axis -> value
  bool offloading = false;
  double tier_gib = 0;
  double output_tokens_per_s = 0, baseline_output_tokens_per_s = 0;
  double ttft_p50_s = 0, ttft_p99_s = 0, baseline_ttft_p99_s = 0;
  double gpu_hit_rate = 0, cpu_hit_rate = 0;
  std::int64_t preemptions = 0;
  double h2d_bytes = 0, d2h_bytes = 0;
};

struct SimView {
  std::string origin, scenario, description, model, hardware, link_model, time_model;
  int tp = 1;
  std::vector<std::string> axes;
  std::vector<SimPointView> points;
};

struct SizeRowView {
  std::string model, hardware, kv_dtype, weight_dtype, reload_verdict, vllm_command;
  int tp = 1;
  bool weights_fit = true;
  std::int64_t kv_bytes_per_token = 0, gpu_kv_tokens = 0, max_model_len = 0;
  double max_concurrency = 0;
  double recommended_gib = -1;  // -1: no recommendation (the weights do not fit)
};

struct ReportInputs {
  std::vector<DmaRecord> dma;
  std::vector<SimView> simulations;
  std::vector<SizeRowView> sizings;
  std::vector<std::string> sources;  // one line per input: where it came from and what it holds
  std::vector<std::string> notes;    // e.g. that dma figures are host figures
  std::vector<std::string> files;    // the files read, by device and inode: one given twice counts once
};

// Adds one kvbench document (by its "schema"). UsageError naming `origin` for an unknown schema or
// a malformed document.
void add_report_document(ReportInputs& in, const nlohmann::json& doc, const std::string& origin);

// Reads the file, then add_report_document; a file already read (the same path twice, or a link
// to it) is skipped with a note, so its records are not counted twice.
void load_report_file(ReportInputs& in, const std::string& path);

}  // namespace kvb

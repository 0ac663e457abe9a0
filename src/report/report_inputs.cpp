#include "report/report_inputs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "output/dma_output.hpp"
#include "output/sim_output.hpp"
#include "output/size_json.hpp"

namespace kvb {
namespace {

SimView sim_view(const nlohmann::json& doc, const std::string& origin) {
  SimView v;
  v.origin = origin;
  v.scenario = doc.at("scenario").at("name").get<std::string>();
  v.description = doc.at("scenario").value("description", std::string());
  v.model = doc.at("model").get<std::string>();
  v.hardware = doc.at("hardware").get<std::string>();
  v.tp = doc.value("tensor_parallel_size", 1);
  v.link_model = doc.value("link_model", std::string());
  v.time_model = doc.value("time_model", std::string());
  for (const auto& a : doc.at("sweep")) v.axes.push_back(a.at("key").get<std::string>());
  for (const auto& jp : doc.at("points")) {
    SimPointView p;
    for (const auto& [k, val] : jp.at("params").items()) p.params.emplace_back(k, val.get<std::string>());
    p.offloading = jp.at("offloading").get<bool>();
    p.tier_gib = jp.at("kv_offloading_size_gib").get<double>();
    const auto& m = jp.at("metrics");
    p.output_tokens_per_s = m.at("output_tokens_per_s").get<double>();
    p.ttft_p50_s = m.at("ttft_s").at("p50").get<double>();
    p.ttft_p99_s = m.at("ttft_s").at("p99").get<double>();
    p.gpu_hit_rate = m.at("gpu_hit_rate").get<double>();
    p.cpu_hit_rate = m.at("cpu_hit_rate").get<double>();
    p.preemptions = m.at("preemptions").get<std::int64_t>();
    p.h2d_bytes = m.at("h2d_bytes").get<double>();
    p.d2h_bytes = m.at("d2h_bytes").get<double>();
    const auto& base = jp.at("vs_no_offload");
    p.baseline_output_tokens_per_s = base.at("baseline_output_tokens_per_s").get<double>();
    p.baseline_ttft_p99_s = base.at("baseline_ttft_p99_s").get<double>();
    v.points.push_back(std::move(p));
  }
  if (v.points.empty()) throw UsageError(fmt::format("{}: a simulate result with no points", origin));
  return v;
}

SizeRowView size_row(const nlohmann::json& j) {
  SizeRowView r;
  r.model = j.at("model").get<std::string>();
  r.hardware = j.at("hardware").get<std::string>();
  r.tp = j.at("tensor_parallel_size").get<int>();
  r.kv_dtype = j.at("kv_cache_dtype").get<std::string>();
  r.weight_dtype = j.at("weight_dtype").get<std::string>();
  r.weights_fit = j.at("weights_fit").get<bool>();
  r.kv_bytes_per_token = j.at("kv_bytes_per_token").get<std::int64_t>();
  r.gpu_kv_tokens = j.at("gpu_kv_tokens").get<std::int64_t>();
  r.max_model_len = j.at("max_model_len").get<std::int64_t>();
  r.max_concurrency = j.at("max_concurrency").get<double>();
  const auto& rec = j.at("recommended_kv_offloading_size_gib");
  r.recommended_gib = rec.is_null() ? -1 : rec.get<double>();
  if (j.contains("reload_vs_recompute")) r.reload_verdict = j.at("reload_vs_recompute").value("verdict", std::string());
  r.vllm_command = j.at("vllm_command").get<std::string>();
  return r;
}

}  // namespace

void add_report_document(ReportInputs& in, const nlohmann::json& doc, const std::string& origin) {
  const std::string schema = schema_of(doc);
  try {
    if (schema == kDmaSchema) {
      auto records = dma_records_from_json(doc, origin);
      if (records.empty()) throw UsageError(fmt::format("{}: a dma result with no records", origin));
      in.sources.push_back(fmt::format("{}: kvbench dma, {} records, {} {} (measured)", origin, records.size(),
                                       records.front().device.backend, records.front().device.name));
      for (auto& r : records) in.dma.push_back(std::move(r));
    } else if (schema == kSimulateSchema) {
      in.simulations.push_back(sim_view(doc, origin));
      const auto& s = in.simulations.back();
      in.sources.push_back(fmt::format("{}: kvbench simulate, scenario {}, {} points (simulated)", origin, s.scenario,
                                       s.points.size()));
    } else if (schema == kSizeSchema) {
      std::size_t n = 0;
      for (const auto& j : doc.at("results")) {
        in.sizings.push_back(size_row(j));
        ++n;
      }
      in.sources.push_back(fmt::format("{}: kvbench size, {} configurations (computed)", origin, n));
    } else {
      throw UsageError(fmt::format("{}: schema '{}' is not a kvbench result; expected {}, {} or {}", origin,
                                   schema.empty() ? "none" : schema, kDmaSchema, kSimulateSchema, kSizeSchema));
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed {} document ({})", origin, schema, e.what()));
  }
}

void load_report_file(ReportInputs& in, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    const auto id = fmt::format("{}:{}", static_cast<unsigned long long>(st.st_dev),
                                static_cast<unsigned long long>(st.st_ino));
    if (std::find(in.files.begin(), in.files.end(), id) != in.files.end()) {
      in.notes.push_back(fmt::format("{} was given more than once; its results are counted once", path));
      return;
    }
    in.files.push_back(id);
  }
  add_report_document(in, read_json_file(path, path), path);
}

}  // namespace kvb

#include "report/report_inputs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "calibrate/calibration_file.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "dma/dma_json.hpp"
#include "output/observe/observe_words.hpp"
#include "output/size/size_json.hpp"
#include "sim/sim_json.hpp"

namespace kvb {

void add_report_document(ReportInputs& in, const nlohmann::json& doc, const std::string& origin) {
  const std::string schema = schema_of(doc);
  try {
    if (schema == kDmaSchema) {
      auto records = dma_records_from_json(doc, origin);
      if (records.empty()) throw UsageError(fmt::format("{}: a dma result with no records", origin));
      in.sources.push_back(fmt::format("{}: kvbench dma, {} records, {} {} (measured)", origin,
                                       records.size(), records.front().device.backend,
                                       records.front().device.name));
      for (auto& r : records) in.dma.push_back(std::move(r));
    } else if (schema == kSimulateSchema) {
      auto sim = simulate_document_from_json(doc, origin);
      if (sim.points.empty()) throw UsageError(fmt::format("{}: a simulate result with no points", origin));
      in.sources.push_back(fmt::format("{}: kvbench simulate, scenario {}, {} points (simulated)", origin,
                                       sim.scenario_name, sim.points.size()));
      in.simulations.push_back({.origin = origin, .document = std::move(sim)});
    } else if (schema == kSizeSchema) {
      auto results = size_document_from_json(doc, origin).results;
      const std::size_t n = results.size();
      if (n == 0) throw UsageError(fmt::format("{}: a size result with no configurations", origin));
      for (auto& r : results) in.sizings.push_back(std::move(r));
      in.sources.push_back(fmt::format("{}: kvbench size, {} configurations (computed)", origin, n));
    } else if (schema == kDoctorSchema) {
      in.doctors.push_back(doctor_view(doctor_report_from_json(doc)));
      const auto& d = in.doctors.back();
      in.sources.push_back(fmt::format("{}: kvbench doctor on {}, {} failed check{}", origin, d.hostname,
                                       d.failed.size(), d.failed.size() == 1 ? "" : "s"));
    } else if (schema == kCalibrateSchema) {
      in.calibrations.push_back(calibration_from_json(doc, origin));
      const auto& c = in.calibrations.back();
      in.sources.push_back(
          fmt::format("{}: kvbench calibrate on {}, {} (measured)", origin, c.device, c.server.model));
    } else if (schema == kTraceSchema) {
      in.traces.push_back(trace_document_from_json(doc, origin));
      const auto& t = in.traces.back().analysis;
      in.sources.push_back(
          fmt::format("{}: kvbench trace of {}, {} requests (counted)", origin, t.path, t.requests));
    } else if (schema == kStorageSchema) {
      in.storage.push_back(storage_document_from_json(doc, origin));
      const auto& d = in.storage.back();
      in.sources.push_back(fmt::format("{}: kvbench storage on {} ({}), {} cases (measured)", origin,
                                       d.dir.path, d.dir.fs_type, d.records.size()));
    } else if (schema == kObserveSchema) {
      in.observations.push_back(observe_document_from_json(doc, origin));
      const auto& r = in.observations.back().result;
      in.sources.push_back(fmt::format("{}: kvbench observe, {} over {:.1f} s (measured)", origin,
                                       engine_name(r.engine), r.seconds));
    } else {
      throw UsageError(
          fmt::format("{}: schema '{}' is not a kvbench result; expected {}, {}, {}, {}, {}, {}, {} or {}",
                      origin, schema.empty() ? "none" : schema, kDmaSchema, kStorageSchema, kSimulateSchema,
                      kSizeSchema, kDoctorSchema, kCalibrateSchema, kTraceSchema, kObserveSchema));
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed {} document ({})", origin, schema, json_error_text(e)));
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

#pragma once
// What a report is drawn from: kvbench result documents (dma, storage, simulate, size, doctor, calibrate,
// trace, observe), read from files or produced by the default assessment, checked once here so the sections
// only format.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/calibration_run.hpp"
#include "dma/dma_record.hpp"
#include "doctor/doctor_json.hpp"
#include "output/observe/observe_json.hpp"
#include "output/size/size_json.hpp"
#include "sim/sim_json.hpp"
#include "storage/storage_json.hpp"
#include "trace/trace_json.hpp"

namespace kvb {

// A simulate result as written, and the input it came from (its section names the source).
struct SimulateInput {
  std::string origin;
  SimulateDocument document;  // at least one point (add_report_document refuses one without)
};

struct ReportInputs {
  std::vector<DmaRecord> dma;
  std::vector<SimulateInput> simulations;
  std::vector<Sizing> sizings;      // every configuration of every size result
  std::vector<DoctorView> doctors;  // kvbench doctor results: the fleet section marks failing nodes
  std::vector<CalibrationResult> calibrations;  // kvbench calibrate --json results
  std::vector<TraceDocument> traces;            // kvbench trace --json results: the miss-ratio curve
  std::vector<StorageDocument> storage;         // kvbench storage --json results
  std::vector<ObserveDocument> observations;    // kvbench observe --json results: the tier in service
  std::vector<std::string> sources;             // one line per input: where it came from and what it holds
  std::vector<std::string> notes;               // e.g. that dma figures are host figures
  std::vector<std::string> files;  // the files read, by device and inode: one given twice counts once
  // The hardware the sizing describes and why (the default assessment: the GPU measured here, or
  // the one assumed without a GPU); the recommendation's first line states it. Empty: from files.
  std::string hardware_basis;
};

// Adds one kvbench document (by its "schema"). UsageError naming `origin` for an unknown schema or
// a malformed document.
void add_report_document(ReportInputs& in, const nlohmann::json& doc, const std::string& origin);

// Reads the file, then add_report_document; a file already read (the same path twice, or a link
// to it) is skipped with a note, so its records are not counted twice.
void load_report_file(ReportInputs& in, const std::string& path);

}  // namespace kvb

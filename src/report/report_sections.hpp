#pragma once
// The report's sections, each an HTML fragment (<section>) built from checked inputs. Every
// string from an input or the system is escaped inside these functions.
#include <string>
#include <vector>

#include "report/report_inputs.hpp"

namespace kvb {

struct ReportContext {
  std::string tool_version;   // "kvbench 0.1.0"
  std::string generated_utc;  // "2026-11-21 10:00 UTC"
  std::string host;           // uname: "Linux 6.1.0 x86_64"
  std::string how;            // "from 3 files" or "default assessment run by kvbench report"
};

std::string dma_section_html(const std::vector<DmaRecord>& records);
std::string simulation_section_html(const std::vector<SimulateInput>& sims);
std::string sizing_section_html(const std::vector<Sizing>& rows);
// The first lines: the recommended tier size, its basis, the command and the curve (empty when
// no sizing carries a recommendation).
std::string recommendation_section_html(const std::vector<Sizing>& rows,
                                        const std::string& hardware_basis = "");
// calibrate results: each point's measured forward and efficiencies, the fit beside what runs use
// without it.
std::string calibration_section_html(const std::vector<CalibrationResult>& calibrations);
std::string trace_section_html(const std::vector<TraceDocument>& traces);
// kvbench storage results: each case's write and read GB/s, and read GB/s by chunk size.
std::string storage_section_html(const std::vector<StorageDocument>& docs);
// kvbench observe results: each window's readings and the tier's verdict.
std::string observe_section_html(const std::vector<ObserveDocument>& docs);
std::string environment_section_html(const ReportInputs& in, const ReportContext& ctx);

// Fleet: one row per node and GPU when dma results come from more than one host.
struct FleetNodeRow {
  std::string hostname, device, pci_bus_id;
  std::size_t cases = 0;
  std::string worst_case;                  // the case farthest from the fleet median, with the band
  std::vector<std::string> outside_band;   // cases outside the robust band
  std::vector<std::string> failed_checks;  // from kvbench doctor results of that host
  bool outlier = false;
};
std::vector<FleetNodeRow> fleet_rows(const std::vector<DmaRecord>& dma,
                                     const std::vector<DoctorView>& doctors);
std::string fleet_section_html(const std::vector<DmaRecord>& dma, const std::vector<DoctorView>& doctors);

// The whole page: head (inline style, a Content-Security-Policy that allows no script and no
// network), a headline, then the sections that have data.
std::string report_html(const ReportInputs& in, const ReportContext& ctx);

// Block sizes as people write them: "4 KiB", "2 MiB".
std::string block_size_label(double bytes);

}  // namespace kvb

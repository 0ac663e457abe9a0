#pragma once
// The time model's efficiency factors: achieved over peak compute and HBM bandwidth, and a fixed
// cost per engine step. Defaults, a scenario's `calibration:` block, or a calibration file.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/hardware_figures.hpp"
#include "catalog/hardware_spec.hpp"

namespace kvb {

class YamlObject;  // core/yaml_reader.hpp: only its readers include yaml-cpp

// One class of servers scored against real vLLM (scenarios/fidelity/<hw>.yaml): a simulation of a
// server of this class states this class's figures; a server of no scored class is "not scored
// for" its class, never given another class's figure.
// A class of servers as the fidelity files key it, and which runs scored it.
struct ServerClass {
  bool moe = false;     // mixture-of-experts models (false: dense)
  std::string weights;  // weight format: bf16, fp8, ...
  int ranks = 1;        // TP x PP
  std::int64_t runs = 0;
  std::string runs_described;  // which runs: models, load, vLLM release
  bool operator==(const ServerClass&) const = default;
};

struct ScoredClass : ServerClass {
  // Mean and worst absolute errors of the TTFT and E2E means, as fractions, over `runs` cases.
  double ttft_mean = 0, e2e_mean = 0, ttft_worst = 0, e2e_worst = 0;
  bool operator==(const ScoredClass&) const = default;
};

// One class of servers scored at one request in flight (--max-num-seqs 1) against public vLLM runs
// (tests/fidelity/single_user.py writes scenarios/single-user/<hw>.yaml): the signed range of the
// TPOT error, (simulated - measured) / measured. The classes above were scored under load.
struct OneInFlightClass : ServerClass {
  double tpot_error_min = 0, tpot_error_max = 0;
};
// Every GPU's classes scored at one request in flight.
const std::map<std::string, std::vector<OneInFlightClass>>& one_in_flight_classes();

// The simulator's expected error for one server: its class's scored figures, or none (and the
// classes that were scored); output/common/expected_error_text words it ("TTFT mean within ...", "not
// scored for dense fp8 on 1 rank: ...").
struct ExpectedError {
  bool moe = false;
  std::string weights;
  int ranks = 1;
  std::string hardware;
  std::vector<ScoredClass> scored;  // empty: this calibration was never scored
  bool fleet = false;               // several replicas behind a router
  // One request in flight (max-num-seqs 1): `scored`'s figures, from runs under load, are not stated;
  // this GPU's class at one request in flight is, if scored, else the range over every GPU's.
  bool one_in_flight = false;
  std::vector<OneInFlightClass> at_one{};  // this GPU's classes scored at one request in flight
  OneInFlightClass at_one_anywhere{};      // every GPU's runs at one request in flight (runs 0: none)
  // Read back from a document written before the error was facts: its words, printed as written.
  std::string recorded{};
};
// The scored class this server belongs to, or null where its class was never scored (or never at
// one request in flight, for a server that runs one).
const ScoredClass* scored_class_of(const ExpectedError& e);
// Its class among this GPU's classes scored at one request in flight, or null.
const OneInFlightClass* one_in_flight_class_of(const ExpectedError& e);

// Where a calibration's figures came from, printed with every result that uses them (worded by
// output/common/time_model_text).
enum class CalibrationFrom {
  kDefaults,       // kvbench's generic figures
  kHardwareTable,  // the hardware table's time model (`hardware`), fitted to `fitted_to`
  kFile,           // a calibration file or scenario block (`file`); `measured`: kvbench calibrate wrote it
  kCalibrate,      // kvbench calibrate's GEMM fit on `device` for `model`
  kFromVllm,       // kvbench calibrate --from-vllm over `runs` real vLLM runs
  kRecorded,       // read back from a result document: `text`, as it was worded there
};
struct CalibrationOrigin {
  CalibrationFrom from = CalibrationFrom::kDefaults;
  std::string hardware, fitted_to;  // kHardwareTable
  std::string file;                 // kFile
  bool measured = false;            // kFile: its `measured:` block names device and model
  std::string device, model;        // kCalibrate; kFile when measured (as the file gives them)
  std::size_t runs = 0;             // kFromVllm
  std::string text;                 // kRecorded
};

struct Calibration {
  double compute_efficiency = 0.5;  // achieved / peak dense FLOP/s
  double memory_efficiency = 0.75;  // achieved / peak HBM bandwidth
  double step_overhead_s = 0.0005;  // scheduler, sampling and launch cost per step
  // Attention (FlashAttention's kernels) runs at its own share of peak, apart from the GEMMs;
  // absent: the compute efficiency.
  std::optional<double> attention_efficiency{};
  // Per request, outside the engine's steps (API server, tokenisation, scheduling, streaming):
  // a request joins the queue this long after it was sent, and its TTFT and E2E carry it.
  double request_overhead_s = 0;
  // vLLM's CPU-tier loads as a share of the link's copy rate: the worker's load path (issued at
  // step boundaries, one transfer per block group) delivers less than isolated copies.
  double load_efficiency = 1.0;
  // GEMMs of a step with few tokens run below their large-batch efficiency: the linear FLOPs run
  // at compute-efficiency x T / (T + this), T the step's tokens (0: no such loss).
  double gemm_half_tokens = 0;
  CalibrationOrigin origin;
  // How far this calibration's simulations were from real vLLM servers, per class of server
  // (tests/fidelity, the figures in scenarios/fidelity/<hw>.yaml); empty where none was scored.
  std::vector<ScoredClass> scored;

  double attention() const { return attention_efficiency.value_or(compute_efficiency); }
};

// What the figures can physically be: no serving GPU runs a model's kernels below 1% of its peak
// (1e-300 would give TTFTs of 1e300 s), and no engine spends more than a second per step outside
// its kernels.
inline constexpr double kMinEfficiency = kMinFractionOfPeak;  // a hardware file's fitted figures too
inline constexpr double kMaxStepOverheadUs = 1e6;

// Keys compute-efficiency, memory-efficiency, attention-efficiency, load-efficiency (fractions in
// [0.01, 1]), step-overhead-us and request-overhead-us (0 to 1e6, finite); UsageError naming the
// key otherwise. `file` names it in the origin printed with every result that uses it.
Calibration parse_calibration(const YamlObject& o, const std::string& file);
// `base` with the keys `o` holds read over it (a scenario's --set calibration.KEY=V); its origin kept.
Calibration calibration_with(const YamlObject& o, Calibration base);

// Reads a calibration file with the keys above.
Calibration load_calibration(const std::string& path);

// What a run uses without a calibration file or block: the GPU's fitted figures where its
// hardware file has them (h100, h200: measured ground truth), else the generic defaults above.
Calibration default_calibration(const HardwareSpec& hw);

}  // namespace kvb

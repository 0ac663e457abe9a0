#pragma once
// Everything a simulation run needs, resolved from a scenario: the model and GPU, the GPU KV
// pool from the sizing engine, the CPU tier from --kv-offloading-size, the link and time models.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "perf/link_curve.hpp"
#include "perf/step_time_model.hpp"
#include "server/resolved_server.hpp"
#include "sim/file_tier.hpp"
#include "sim/scenario.hpp"
#include "sim/secondary_tier.hpp"
#include "sim/sim_notes.hpp"
#include "size/kv_layout.hpp"
#include "size/sizing.hpp"

namespace kvb {

struct SimulationSetup {
  Scenario scenario;
  ModelSpec model;
  HardwareSpec hw;
  KvLayout layout;
  // The server run: its batch limits the scenario's or vLLM's defaults on this GPU, its
  // max_model_len the one the GPU pool holds (the scenario's, else the model's clipped to the pool).
  ResolvedServer server;
  std::int64_t gpu_blocks = 0;
  GpuBlocksOrigin gpu_blocks_origin{};
  double block_bytes_per_rank = 0;  // what each rank moves per block over its own link
  bool offloading = false;
  std::int64_t cpu_blocks = 0;                      // num_cpu_blocks of vLLM's CPU tier
  double cpu_block_bytes = 0;                       // one block across all ranks
  std::optional<SecondaryTierFigures> secondary{};  // behind the CPU tier (vLLM >= 0.22); none by default
  std::optional<FileTierFigures> file_tier{};       // kv-offloading-medium file: the tier is on files
  LinkProfile link{};
  // PCIe-only GPUs at TP > 1: NCCL's all-reduces cross the links the tier copies over.
  bool fabric_shares_host_link = false;
  StepTimeModel predictor;
  std::vector<SimNote> notes{};  // approximations that apply to this run
};

// What the simulator's expected error against real vLLM is for this server: its class (dense or
// MoE, weight format, ranks) and the calibration's scored classes; output/common/expected_error_text gives
// the figures of its own class, else "not scored for" it, never another class's figure.
ExpectedError expected_error_for(const SimulationSetup& setup);

// Throws UsageError for an impossible configuration (weights do not fit, a max-model-len the
// pool cannot hold), naming the scenario key.
SimulationSetup prepare_simulation(const Scenario& s, const std::optional<LinkProfile>& measured_link);

// The scenario at the TP, PP and weights its sizing inputs resolved (tensor-parallel-size auto:
// the configuration search's pick), so the step model, the printed server and every later sweep
// point are the sized ones.
Scenario with_resolved_parallelism(const Scenario& s, const SizingInputs& in);

// The same from a sizing already planned (`size --workload/--trace`: before its commands, which
// follow the simulated tier; a finished Sizing is a plan too): the simulated GPU pool,
// time model and TP are exactly the ones the sizing printed (its --gpu-memory and other node
// overrides included), never a second build that could differ. The link: `measured_link`, else
// `in.link`, else the hardware table's.
SimulationSetup prepare_simulation(const Scenario& s, const SizingInputs& in, const SizingPlan& sizing,
                                   const std::optional<LinkProfile>& measured_link);

}  // namespace kvb

#pragma once
// `kvbench report` with no inputs runs this: a dma sweep on the best backend present, the default
// simulation sweep driven by that measurement where it is a GPU's, and sizing for the catalog's
// main models on the detected (or given) hardware.
#include <cstdint>
#include <functional>
#include <string>

#include "dma/dma_sweep.hpp"
#include "report/report_inputs.hpp"
#include "server/serve_settings.hpp"

namespace kvb {

struct AssessmentSettings {
  std::string backend = "auto";
  int device = 0;
  std::string hw;  // empty: detected from the GPU's name, else kDefaultHardware (server/server_spec.hpp)
  std::string scenario = "chat-multi-turn";
  std::string models = "llama-3.1-8b,llama-3.1-70b,llama-3.1-405b,qwen3-235b-a22b,deepseek-v3,gpt-oss-120b";
  std::int64_t max_model_len = 128 * 1024;  // tokens (--ctx replaces it through server_flags)
  // The server flags given (report --ctx, --gpu-memory-utilization, --kv-cache-dtype, ...), applied
  // last over the sizing's server (vLLM's defaults) and over the simulated scenario's; none: unset.
  // Checked by the command before anything is measured.
  std::function<void(ServeSettings&)> server_flags;
  DmaSweepSettings dma = quick_dma_settings();
  std::string compute_blocks = "64KiB,2MiB";  // --with-compute cases; empty: none
  std::string save_json_dir;  // when set: dma.json, simulate.json and size.json are written there too

  // Fewer sizes and shorter cases than `kvbench dma`'s defaults: a report in about a minute.
  static DmaSweepSettings quick_dma_settings();
};

using AssessmentLog = std::function<void(const std::string& line)>;

// Everything it measured, simulated and computed, as report inputs. Device errors propagate
// (exit 3 for an explicit GPU backend without a device).
ReportInputs run_default_assessment(const AssessmentSettings& s, const AssessmentLog& log);

}  // namespace kvb

#include "size/pinning_cost.hpp"

#include <fmt/format.h>

namespace kvb {

PinningCost pinning_cost(const std::string& hardware) {
  // ../shared/gpu-runs/<machine>/decode-and-pinning-ground-truth.json, the 32 GiB rows (the
  // largest measured; 1 and 8 GiB agree within 15%): seconds / GiB.
  if (hardware == "h200") {
    return {7.666 / 32, 13.651 / 32,
            "measured on the H200 machine, 32 GiB "
            "(gpu-runs/h200-2026-11-22/decode-and-pinning-ground-truth.json)"};
  }
  PinningCost h100{
      8.25 / 32, 12.633 / 32,
      "measured on the H100 machine, 32 GiB (gpu-runs/h100-2026-11-22/decode-and-pinning-ground-truth.json)"};
  if (hardware != "h100") {
    h100.source =
        fmt::format("{}; not measured on {}: pinning is host work, so the H100 node's figure stands in",
                    h100.source, hardware);
  }
  return h100;
}

}  // namespace kvb

#include "size/pinning_cost.hpp"

#include <fmt/format.h>

namespace kvb {

namespace {

PinningCost from(const HardwareSpec::MeasuredPinning& m) {
  return {m.register_s_per_gib, m.host_alloc_s_per_gib, m.source};
}

}  // namespace

PinningCost pinning_cost(const HardwareSpec& hw) {
  if (!hw.measured_pinning.source.empty()) return from(hw.measured_pinning);
  auto stand_in = from(resolve_hardware("h100").measured_pinning);
  stand_in.source =
      fmt::format("{}; not measured on {}: pinning is host work, so the H100 node's figure stands in",
                  stand_in.source, hw.name);
  return stand_in;
}

}  // namespace kvb

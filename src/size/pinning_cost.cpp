#include "size/pinning_cost.hpp"

namespace kvb {

namespace {

PinningCost from(const HardwareSpec::MeasuredPinning& m) {
  return {m.register_s_per_gib, m.host_alloc_s_per_gib, m.source, {}, {}};
}

}  // namespace

// Pinning is host work (the kernel's page pinning and the driver's registration), so a GPU whose
// file has no measurement takes the first catalog file that has one (scenarios/hardware/*.yaml,
// `pinning_*` with `pinning_source`): which node stood in is data, not code.
PinningCost pinning_cost(const HardwareSpec& hw) {
  if (!hw.measured_pinning.source.empty()) {
    auto own = from(hw.measured_pinning);
    own.hardware = hw.name;
    return own;
  }
  for (const auto& other : hardware_catalog()) {
    if (other.measured_pinning.source.empty()) continue;
    auto stand_in = from(other.measured_pinning);
    stand_in.hardware = hw.name;
    stand_in.stood_in = other.name;
    return stand_in;
  }
  return {0, 0, {}, hw.name, {}};
}

}  // namespace kvb

#include "size/pinning_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace kvb {

namespace {

PinningCost from(const HardwareSpec::MeasuredPinning& m) {
  return {m.register_s_per_gib, m.host_alloc_s_per_gib, m.source};
}

}  // namespace

// Pinning is host work (the kernel's page pinning and the driver's registration), so a GPU whose
// file has no measurement takes the first catalog file that has one (scenarios/hardware/*.yaml,
// `pinning_*` with `pinning_source`): which node stood in is data, not code.
PinningCost pinning_cost(const HardwareSpec& hw) {
  if (!hw.measured_pinning.source.empty()) return from(hw.measured_pinning);
  for (const auto& other : hardware_catalog()) {
    if (other.measured_pinning.source.empty()) continue;
    auto stand_in = from(other.measured_pinning);
    auto name = other.name;  // catalog names are lower case; GPUs are named upper case
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    stand_in.source =
        fmt::format("{}; not measured on {}: pinning is host work, so the {} node's figure stands in",
                    stand_in.source, hw.name, name);
    return stand_in;
  }
  return {0, 0, fmt::format("not measured on {} nor on any catalog GPU", hw.name)};
}

}  // namespace kvb

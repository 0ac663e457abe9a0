#include "size/sizing_warnings.hpp"

namespace kvb {

bool refuses_start(const SizingWarning& w) {
  return std::holds_alternative<ContextBeyondTrained>(w) || std::holds_alternative<TierRefused>(w) ||
         std::holds_alternative<TierRegionPinFails>(w);
}

}  // namespace kvb

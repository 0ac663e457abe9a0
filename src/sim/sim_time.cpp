#include "sim/sim_time.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

void refuse_sim_duration(double seconds, std::string_view what) {
  throw UsageError(
      fmt::format("the simulated clock cannot hold {} of {:g} s: expected 0 to {:g} s "
                  "(it counts integer nanoseconds)",
                  what, seconds, kMaxSimSeconds));
}

}  // namespace kvb

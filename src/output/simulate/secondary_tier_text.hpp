#pragma once
// simulate's table of a secondary tier's figures per sweep point (sim/secondary_tier.hpp): empty
// where no point ran one, so a run without a secondary tier prints what it always did.
#include <string>

#include "sim/sweep.hpp"

namespace kvb {

std::string secondary_tier_tables(const SweepRun& run);

}  // namespace kvb

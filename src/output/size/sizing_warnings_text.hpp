#pragma once
// The one wording of each sizing warning (size/sizing_warnings.hpp holds the facts): what the
// text, the JSON and stderr all print.
#include <string>

#include "size/sizing_warnings.hpp"

namespace kvb {

std::string sizing_warning_text(const SizingWarning& w);

}  // namespace kvb

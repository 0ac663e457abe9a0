#pragma once
// `size --list-models` and `size --list-hardware`: the embedded catalogs as tables.
#include <string>

namespace kvb {

std::string models_table_text();
std::string hardware_table_text();

}  // namespace kvb

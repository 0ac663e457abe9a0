#pragma once
// The CSV trace format's cells (trace_reader): its arrival times and its header's column names.
#include <optional>
#include <string>

namespace kvb {

// "2023-11-16 18:15:46.6805900" (the Azure trace) or plain seconds from 0 to 1e10 (an epoch
// time) -> seconds; nullopt for anything else, trailing junk included.
std::optional<double> csv_time(const std::string& text);

// A CSV header cell: its name, lower case, without white space or surrounding quotes.
std::string header_name(const std::string& cell);

}  // namespace kvb

// What kvbench says when CLI11 refuses a command line: CLI11's own words where they are clear,
// plainer ones for a flag given twice and for arguments no flag takes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kvb {

// One line, without the "kvbench: error: " prefix.
std::string parse_error_text(const CLI::ParseError& e, const CLI::App& app);

}  // namespace kvb

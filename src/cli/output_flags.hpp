#pragma once
// One output interface for every subcommand that writes a result (docs/conventions.md, "Output"):
// --format picks what standard output shows (table: the text for people), --json is --format json,
// and -o FILE also writes the machine-readable form (the format chosen; JSON where it is a table)
// atomically, standard output unchanged. report -o (the page) and calibrate -o (the calibration
// file) name their one artefact instead.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kvb {

struct OutputFlags {
  std::string format = "table";
  bool json = false;
  std::string output;
  const CLI::Option* format_option = nullptr;  // to tell --format given from its default
};

// --format (one of `formats`, the first the default), --json, --output/-o.
void add_output_flags(CLI::App* app, OutputFlags& flags, const std::vector<std::string>& formats,
                      const std::string& json_schema);

// The format asked for: --json, or --format checked against `formats` (UsageError naming both).
// Also refuses an unwritable -o before anything runs.
std::string chosen_format(const OutputFlags& flags, const std::vector<std::string>& formats);

// Writes -o (the machine-readable text) first, then standard output.
// "kvbench: warning: TEXT" on stderr, on one line, whatever bytes of a path TEXT quotes.
void print_warning(const std::string& text);

void emit(const OutputFlags& flags, const std::string& stdout_text, const std::string& file_text);

}  // namespace kvb

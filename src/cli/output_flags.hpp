#pragma once
// One output interface for every subcommand that writes a result (docs/conventions.md, "Output"):
// --format picks what standard output shows (table: the text for people), --json is --format json,
// and -o FILE also writes the machine-readable form (the format chosen; JSON where it is a table)
// atomically, standard output unchanged. report -o (the page) and calibrate -o (the calibration
// file) name their one artefact instead.
//
// Each command declares its printers once, a `Printers<Result>` table: the formats --format accepts
// (the first the default) are that table's, and emit_result prints from it. calibrate, whose -o is
// its calibration file, keeps one table per kind of run and prints from it (printed).
#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvb {

enum class OutputFormat { kTable, kJson, kCsv, kMarkdown, kProm };
std::string to_string(OutputFormat f);  // the --format value: "table", "json", ...

// One format a command offers and how it words its result there.
template <class Result>
struct Printer {
  OutputFormat format;
  std::function<std::string(const Result&)> print;
};
template <class Result>
using Printers = std::vector<Printer<Result>>;

template <class Result>
std::vector<OutputFormat> formats_of(const Printers<Result>& printers) {
  std::vector<OutputFormat> formats;
  for (const auto& p : printers) formats.push_back(p.format);
  return formats;
}

struct OutputFlags {
  std::string format = "table";
  bool json = false;
  std::string output;
  std::vector<OutputFormat> formats;           // what --format accepts, the first the default
  const CLI::Option* format_option = nullptr;  // to tell --format given from its default
};

// --format (one of `formats`, the first the default), --json, --output/-o.
void add_output_flags(CLI::App* app, OutputFlags& flags, const std::vector<OutputFormat>& formats,
                      const std::string& json_schema);

// The format asked for: --json, or --format checked against the command's formats (UsageError
// naming both). Also refuses an unwritable -o before anything runs.
OutputFormat chosen_format(const OutputFlags& flags);

// "kvbench: warning: TEXT" on stderr, on one line, whatever bytes of a path TEXT quotes.
void print_warning(const std::string& text);

// Writes -o (the machine-readable text) first, then standard output.
void emit(const OutputFlags& flags, const std::string& stdout_text, const std::string& file_text);

// `result` as the printer for `format` words it (a format the table lacks is a logic error: the
// format was checked against the same table first).
template <class Result>
std::string printed(const Printers<Result>& printers, OutputFormat format, const Result& result) {
  for (const auto& p : printers)
    if (p.format == format) return p.print(result);
  throw std::logic_error("output: no printer for --format " + to_string(format));
}

// `result` in `format` on standard output; -o gets the same text, or the JSON printer's for a table.
template <class Result>
void emit_result(const OutputFlags& flags, OutputFormat format, const Printers<Result>& printers,
                 const Result& result) {
  const auto text = printed(printers, format, result);
  const bool table = format == OutputFormat::kTable;
  emit(flags, text, table && !flags.output.empty() ? printed(printers, OutputFormat::kJson, result) : text);
}

}  // namespace kvb

#include "cli/output_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"

namespace kvb {

std::string to_string(OutputFormat f) {
  switch (f) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kJson:
      return "json";
    case OutputFormat::kCsv:
      return "csv";
    case OutputFormat::kMarkdown:
      return "markdown";
    case OutputFormat::kProm:
      return "prom";
  }
  return "table";
}

namespace {

std::vector<std::string> names(const std::vector<OutputFormat>& formats) {
  std::vector<std::string> out;
  for (const auto f : formats) out.push_back(to_string(f));
  return out;
}

}  // namespace

void add_output_flags(CLI::App* app, OutputFlags& flags, const std::vector<OutputFormat>& formats,
                      const std::string& json_schema) {
  flags.formats = formats;
  flags.format = to_string(formats.front());
  flags.format_option = app->add_option("--format", flags.format,
                                        fmt::format("what standard output shows: {} (json: {})",
                                                    join(names(formats), ", "), json_schema))
                            ->capture_default_str();
  app->add_flag("--json", flags.json, "same as --format json");
  app->add_option(
      "--output,-o", flags.output,
      "also write the machine-readable result here, atomically: the --format chosen, JSON for a table");
}

OutputFormat chosen_format(const OutputFlags& flags) {
  const auto formats = names(flags.formats);
  const bool format_given = flags.format_option != nullptr && flags.format_option->count() > 0;
  if (flags.json && format_given && flags.format != "json") {
    throw UsageError(fmt::format("--json and --format {}: expected one of them", flags.format));
  }
  const std::string f = flags.json ? "json" : flags.format;
  const auto at = std::find(formats.begin(), formats.end(), f);
  if (at == formats.end()) {
    const std::vector<std::string> head(formats.begin(), formats.end() - 1);
    throw UsageError(fmt::format("--format '{}': expected {} or {}", f, join(head, ", "), formats.back()));
  }
  if (!flags.output.empty()) require_writable_output(flags.output);
  return flags.formats[static_cast<std::size_t>(at - formats.begin())];
}

void print_warning(const std::string& text) {
  std::fprintf(stderr, "kvbench: warning: %s\n", printable_text(text).c_str());
}

void emit(const OutputFlags& flags, const std::string& stdout_text, const std::string& file_text) {
  // Text, CSV and Prometheus output as UTF-8 whatever a label quotes (JSON is already: json_text).
  if (!flags.output.empty()) write_file_atomically(flags.output, escape_invalid_utf8(file_text));
  std::fputs(escape_invalid_utf8(stdout_text).c_str(), stdout);
}

}  // namespace kvb

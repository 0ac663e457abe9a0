#include "trace/trace_csv.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {

std::optional<double> csv_time(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, used = 0;
  double s = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s, &used) == 6) {
    if (static_cast<std::size_t>(used) != text.size() || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 ||
        d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || !(s >= 0 && s < 61)) {
      return std::nullopt;
    }
    // Days from the civil date (H. Hinnant's algorithm), so no time zone or locale takes part.
    y -= mo <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const double days = era * 146097.0 + doe - 719468.0;
    return days * 86400 + h * 3600 + mi * 60 + s;
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !(v >= 0 && v <= 1e10)) return std::nullopt;
  return v;
}

std::string header_name(const std::string& cell) {
  auto c = trim_copy(to_lower(cell));
  if (c.size() >= 2 && c.front() == '"' && c.back() == '"') c = trim_copy(c.substr(1, c.size() - 2));
  return c;
}

// The CSV columns by header name (quoted or not, any case): arrival, prompt and output.
bool TraceReader::read_csv_header(const std::string& first) {
  const auto columns = split(first, ',');
  for (int i = 0; i < static_cast<int>(columns.size()); ++i) {
    const auto c = header_name(columns[static_cast<std::size_t>(i)]);
    if (csv_arrival_ < 0 && (c == "timestamp" || c == "arrival" || c == "arrival_s")) csv_arrival_ = i;
    if (csv_prompt_ < 0 && (c == "contexttokens" || c == "prompt_tokens" || c == "input_length"))
      csv_prompt_ = i;
    if (csv_output_ < 0 && (c == "generatedtokens" || c == "output_tokens" || c == "output_length"))
      csv_output_ = i;
  }
  return csv_arrival_ >= 0 && csv_prompt_ >= 0 && csv_output_ >= 0;
}

}  // namespace kvb

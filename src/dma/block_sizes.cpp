#include "dma/block_sizes.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {

std::vector<std::uint64_t> parse_block_sizes(const std::string& text, const std::string& what) {
  std::vector<std::uint64_t> out;
  const auto dots = text.find("..");
  if (dots != std::string::npos) {
    const auto lo = parse_bytes(text.substr(0, dots), what).bytes;
    const auto hi = parse_bytes(text.substr(dots + 2), what).bytes;
    if (hi < lo) {
      throw UsageError(
          fmt::format("{} '{}': the range is reversed; expected LOW..HIGH such as 4KiB..64MiB", what, text));
    }
    for (std::uint64_t b = lo; b <= hi; b *= 2) {
      out.push_back(b);
      if (b > hi / 2) break;  // the next doubling passes HIGH (and could wrap)
    }
    if (out.back() != hi) {  // HIGH is not on the doubling: say so rather than drop it
      throw UsageError(
          fmt::format("{} '{}': {} B is not LOW doubled a whole number of times; expected LOW..HIGH such as "
                      "4KiB..64MiB, or a list (4KiB,3MiB)",
                      what, text, hi));
    }
  } else {
    for (const auto& part : split(text, ',')) out.push_back(parse_bytes(part, what).bytes);
  }
  if (out.size() > 64)
    throw UsageError(fmt::format("{} '{}': {} sizes; expected at most 64", what, text, out.size()));
  return out;
}

}  // namespace kvb

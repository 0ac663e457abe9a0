// libFuzzer target: kvbench observe's Prometheus text reader and the window read from it. The
// input is one /metrics body, read as both scrapes of a window: it ends in readings whose counters
// moved by exactly 0, or a UsageError naming the line; never a crash, a hang or another exception.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/errors.hpp"
#include "observe/observe_window.hpp"
#include "observe/prom_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto e = kvb::parse_prom_text(text, "fuzz.prom");
    if (e.samples.empty()) std::abort();
    const auto r = kvb::observe_window(e, e, 1.0, "fuzz.prom");
    for (const auto& reading : r.readings)
      if (!std::isfinite(reading.after) || (reading.counter && reading.delta != 0)) std::abort();
    if (r.verdict == kvb::TierVerdictKind::Pays || r.verdict == kvb::TierVerdictKind::TooSmall) std::abort();
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

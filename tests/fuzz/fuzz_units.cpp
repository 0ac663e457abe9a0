// libFuzzer target: every parser of a command-line number, size or length. Bad input must end in
// a UsageError (exit 2), never a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/errors.hpp"
#include "core/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto quiet = [](auto&& parse) {
    try {
      parse();
    } catch (const kvb::UsageError&) {
    }
  };
  quiet([&] { (void)kvb::parse_bytes(text, "--pool"); });
  quiet([&] { (void)kvb::parse_token_count(text, "--max-model-len"); });
  // Properties beyond "no crash": a value that comes back is inside the range asked for, so no
  // narrowing that follows can wrap (issue 26 §1).
  quiet([&] {
    const auto v = kvb::parse_positive_int(text, "--tp");
    if (v < 1 || v > kvb::kMaxCount) std::abort();
  });
  quiet([&] {
    const auto v = kvb::parse_int_in(text, "--block-size", 1, 256);
    if (v < 1 || v > 256) std::abort();
  });
  quiet([&] { (void)kvb::parse_positive_int(text, "--seed", true); });
  quiet([&] { (void)kvb::parse_real_in(text, "--gpu-memory-utilization", 0.0, 1.0); });
  quiet([&] { (void)kvb::parse_gib_size(text, "--kv-offloading-size"); });
  quiet([&] { (void)kvb::parse_plain_real(text, "--max-time"); });
  quiet([&] { (void)kvb::parse_seconds(text, "--slo-ttft"); });
  return 0;
}

// libFuzzer target: every parser of a command-line number, size or length. Bad input must end in
// a UsageError (exit 2), never a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
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
  quiet([&] { (void)kvb::parse_positive_int(text, "--tp"); });
  quiet([&] { (void)kvb::parse_positive_int(text, "--seed", true); });
  quiet([&] { (void)kvb::parse_real_in(text, "--gpu-memory-utilization", 0.0, 1.0); });
  quiet([&] { (void)kvb::parse_gib_size(text, "--kv-offloading-size"); });
  quiet([&] { (void)kvb::parse_plain_real(text, "--max-time"); });
  quiet([&] { (void)kvb::parse_seconds(text, "--slo-ttft"); });
  return 0;
}

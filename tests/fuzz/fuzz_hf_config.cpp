// libFuzzer target: the Hugging Face config.json reader. Any input ends in a model or a
// UsageError naming the file, never a crash or another exception.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/hf_config.hpp"
#include "core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  try {
    (void)kvb::model_from_hf_config(text, "fuzz.config.json", warnings);
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

// libFuzzer target: doctor's reading of a node's /proc (issue 26 §3, §4). The input, split at NUL
// bytes, becomes /proc/meminfo, /proc/self/limits (reached through a symlink, as /proc/self is),
// /proc/mounts and a file in /dev/shm of a recorded tree. Any input ends in checks whose figures
// are finite and non-negative, or a UsageError; never a crash, another exception, or a figure
// such as -251 GiB or 931,574 GiB free read from junk.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "doctor/node_checks.hpp"
#include "doctor/node_facts.hpp"
#include "output/doctor/doctor_check_text.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& tree() {
  static const fs::path root = [] {
    const auto r = fs::temp_directory_path() / ("kvb-fuzz-node-" + std::to_string(::getpid()));
    for (const char* d : {"proc/self", "dev/shm", "recorded"}) fs::create_directories(r / d);
    fs::remove(r / "proc/self/limits");
    fs::create_symlink("../../recorded/limits", r / "proc/self/limits");
    return r;
  }();
  return root;
}

void put(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> parts(4);
  std::size_t k = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0 && k + 1 < parts.size())
      ++k;
    else
      parts[k].push_back(static_cast<char>(data[i]));
  }
  const auto& root = tree();
  put(root / "proc/meminfo", parts[0]);
  put(root / "recorded/limits", parts[1]);
  put(root / "proc/mounts", parts[2]);
  put(root / "dev/shm/leftover", parts[3]);
  try {
    const auto facts = kvb::read_node_facts(root.string());
    kvb::DoctorRequest request;
    request.tier_bytes = 64.0 * (1 << 30);
    request.gpu_skip_reason = "fuzz";
    for (const auto& c : kvb::worded_checks(kvb::run_node_checks(facts, request))) {
      for (const auto& v : {c.value, c.threshold}) {
        if (v && !(std::isfinite(*v) && *v >= 0)) std::abort();  // a figure read from junk
      }
    }
  } catch (const kvb::UsageError&) {
  }
  return 0;
}

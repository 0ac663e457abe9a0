#pragma once
// Error kinds map one-to-one onto kvbench's exit codes (README: Exit codes).
#include <stdexcept>
#include <string>

namespace kvb {

enum ExitCode : int { kExitOk = 0, kExitCheckFailed = 1, kExitUsage = 2, kExitDevice = 3 };

// Bad usage or bad input: the message names the input and what would be accepted.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A device or runtime failure (no GPU, driver too old, allocation failed).
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A check that ran and failed (data verification, regression found).
struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kvb

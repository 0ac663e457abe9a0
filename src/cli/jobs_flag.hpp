#pragma once
// --jobs N on the subcommands that run independent simulations (size --workload/--trace,
// simulate): how many run at once. The output does not depend on it.
#include <CLI/CLI.hpp>
#include <string>

namespace kvb {

void add_jobs_flag(CLI::App* app, std::string& jobs);
// The flag's value as a job count: absent or 0, the cores this process may use (its affinity mask
// and cgroup quota); else 1..1024 (exit 2 otherwise).
int jobs_from_flag(const std::string& jobs);

}  // namespace kvb

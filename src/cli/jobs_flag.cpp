#include "cli/jobs_flag.hpp"

#include "core/units.hpp"
#include "core/worker_pool.hpp"

namespace kvb {

void add_jobs_flag(CLI::App* app, std::string& jobs) {
  app->add_option("--jobs,-j", jobs,
                  "independent simulations run at once (default 0: the cores this process may use, its "
                  "affinity and cgroup quota included); the output is the same at any count");
}

int jobs_from_flag(const std::string& jobs) {
  if (jobs.empty()) return usable_cores();
  return resolve_jobs(parse_positive_int(jobs, "--jobs", true, 1024));
}

}  // namespace kvb

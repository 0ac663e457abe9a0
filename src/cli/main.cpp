// kvbench: GPU<->CPU KV-cache transfer benchmarks, serving simulation and vLLM offload sizing.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <vector>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "kvbench_config.hpp"

namespace {

int report_error(const char* kind, const std::exception& e, int code) {
  std::fprintf(stderr, "kvbench: %s%s\n", kind, e.what());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kvbench: how fast this node moves KV-cache blocks between GPU and CPU, whether vLLM's CPU "
               "offloading pays off, and what --kv-offloading-size to give it."};
  app.set_version_flag("--version", std::string("kvbench ") + KVBENCH_VERSION);
  app.require_subcommand(0, 1);
  std::vector<kvb::Command> commands;
  commands.push_back(kvb::register_size(app));
  commands.push_back(kvb::register_dma(app));
  commands.push_back(kvb::register_simulate(app));
  commands.push_back(kvb::register_report(app));
  commands.push_back(kvb::register_compare(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "kvbench: error: %s (see kvbench --help)\n", e.what());
    return kvb::kExitUsage;
  }
  try {
    for (const auto& c : commands) {
      if (c.app->parsed()) return c.run();
    }
    std::string names;
    for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c.app->get_name();
    std::fprintf(stderr, "kvbench: error: a subcommand is required: %s (see kvbench --help)\n", names.c_str());
    return kvb::kExitUsage;
  } catch (const kvb::UsageError& e) {
    return report_error("error: ", e, kvb::kExitUsage);
  } catch (const kvb::DeviceError& e) {
    return report_error("device error: ", e, kvb::kExitDevice);
  } catch (const kvb::CheckFailed& e) {
    return report_error("check failed: ", e, kvb::kExitCheckFailed);
  } catch (const std::exception& e) {
    return report_error("runtime error: ", e, kvb::kExitDevice);
  }
}

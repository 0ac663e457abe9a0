// kvbench: GPU<->CPU KV-cache transfer benchmarks, serving simulation and vLLM offload sizing.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "cli/build_commit.hpp"
#include "cli/command.hpp"
#include "cli/parse_error_text.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "kvbench_config.hpp"
#include "output/size/sizing_advice_text.hpp"

namespace {

// An explicitly empty value (--model '' or --model=) would read as "not given" and fall back to a
// default without a word; it is refused instead. Returns the option given an empty value, or "".
std::string option_with_empty_value(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.size() > 3 && arg.substr(0, 2) == "--" && arg.back() == '=')
      return std::string(arg.substr(0, arg.size() - 1));
    if (arg.empty())
      return i > 1 && argv[i - 1][0] == '-' ? argv[i - 1] : std::string("argument ") + std::to_string(i);
  }
  return "";
}

int report_error(const char* kind, const std::exception& e, int code) {
  // One line, whatever bytes of a path the message quotes (a newline, a byte that is not UTF-8).
  std::fprintf(stderr, "kvbench: %s%s\n", kind, kvb::printable_text(e.what()).c_str());
  return code;
}

// A result that never reached standard output (a full disk, a closed pipe's file) is a failure,
// not a success: flush and check it before exiting (exit 1 when the run itself succeeded).
int finish_stdout(int code) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int err = errno;
    std::fprintf(stderr, "kvbench: error: writing standard output failed (%s)\n",
                 err != 0 ? std::strerror(err) : "write error");
    return code == kvb::kExitOk ? kvb::kExitCheckFailed : code;
  }
  return code;
}

int run_command(const std::vector<kvb::Command>& commands) {
  try {
    for (const auto& c : commands) {
      if (!c.app->parsed()) continue;
      const int code = c.run();
      // What finished was written; a signal still ends the run with its status (130, 143).
      return kvb::interrupt_requested() && code == kvb::kExitOk ? kvb::interrupt_exit_code() : code;
    }
    std::string names;
    for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c.app->get_name();
    std::fprintf(stderr, "kvbench: error: a subcommand is required: %s (see kvbench --help)\n",
                 names.c_str());
    return kvb::kExitUsage;
  } catch (const kvb::Interrupted&) {
    // Nothing finished that could be kept (the output files on disk are untouched).
    std::fprintf(stderr, "kvbench: %s: stopped before anything was finished; nothing written\n",
                 kvb::interrupt_signal_name().c_str());
    return kvb::interrupt_exit_code();
  } catch (const kvb::WeightsDoNotFit& e) {
    return report_error("error: ", std::runtime_error(kvb::weights_do_not_fit_text(e)), kvb::kExitUsage);
  } catch (const kvb::UsageError& e) {
    return report_error("error: ", e, kvb::kExitUsage);
  } catch (const kvb::DeviceError& e) {
    return report_error("device error: ", e, kvb::kExitDevice);
  } catch (const kvb::CheckFailed& e) {
    return report_error("check failed: ", e, kvb::kExitCheckFailed);
  } catch (const std::bad_alloc& e) {
    return report_error("out of memory: ", e, kvb::kExitDevice);
  } catch (const std::exception& e) {
    // Every input error is a UsageError where it is read (tests prove it per reader): reaching
    // this is a kvbench bug, said as such.
    return report_error("internal error, please report it with the command line: ", e, kvb::kExitDevice);
  }
}

// The first argument when it is neither an option nor a subcommand: what to say about it; "" else.
std::string unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == argv[1]) return "";
    names.push_back(sub->get_name());
  }
  return fmt::format("'{}' is not a subcommand; expected one of {}", argv[1], kvb::join(names, ", "));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kvbench: how fast this node moves KV-cache blocks between GPU and CPU, whether vLLM's CPU "
      "offloading pays off, and what --kv-offloading-size to give it."};
  app.set_version_flag("--version",
                       fmt::format("kvbench {} (commit {})", KVBENCH_VERSION, kvb::build_commit()));
  app.require_subcommand(0, 1);
  std::vector<kvb::Command> commands;
  commands.push_back(kvb::register_size(app));
  commands.push_back(kvb::register_dma(app));
  commands.push_back(kvb::register_simulate(app));
  commands.push_back(kvb::register_report(app));
  commands.push_back(kvb::register_compare(app));
  commands.push_back(kvb::register_doctor(app));
  commands.push_back(kvb::register_calibrate(app));
  commands.push_back(kvb::register_trace(app));
  commands.push_back(kvb::register_observe(app));
  commands.push_back(kvb::register_storage(app));

  // Checked before parsing: CLI11 answers `kvbench fleet --help` with the main help and exit 0.
  if (const auto unknown = unknown_subcommand(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "kvbench: error: %s\n", kvb::printable_text(unknown).c_str());
    return kvb::kExitUsage;
  }
  if (const auto option = option_with_empty_value(argc, argv); !option.empty()) {
    std::fprintf(stderr, "kvbench: error: %s: the value is empty; expected a value (see kvbench --help)\n",
                 option.c_str());
    return kvb::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return finish_stdout(app.exit(e));
    std::fprintf(stderr, "kvbench: error: %s\n", kvb::printable_text(kvb::parse_error_text(e, app)).c_str());
    return kvb::kExitUsage;
  }
  kvb::install_interrupt_handlers();
  return finish_stdout(run_command(commands));
}

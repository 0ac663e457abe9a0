#pragma once
// How main.cpp sees a subcommand: its CLI11 node and what to run when it was chosen.
#include <CLI/CLI.hpp>
#include <functional>

namespace kvb {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command register_size(CLI::App& parent);
Command register_dma(CLI::App& parent);
Command register_simulate(CLI::App& parent);
Command register_compare(CLI::App& parent);
Command register_report(CLI::App& parent);
Command register_doctor(CLI::App& parent);
Command register_calibrate(CLI::App& parent);
Command register_trace(CLI::App& parent);
Command register_observe(CLI::App& parent);
Command register_storage(CLI::App& parent);

}  // namespace kvb

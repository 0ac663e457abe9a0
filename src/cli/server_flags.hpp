#pragma once
// The server as flags, the same for every subcommand that takes one (size, simulate, trace,
// calibrate): registered from the one table of server fields (sim/server_fields.hpp), so a flag is
// spelled, parsed and applied in one place. A flag not given leaves the server as it stands:
// vLLM's defaults for size and trace, the scenario's keys for simulate.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "server/serve_settings.hpp"

namespace kvb {

struct ServerFlags {
  std::map<std::string, std::string> given;  // by scenario key: the text given ("" when not given)
  CLI::App* app = nullptr;                   // to tell --pp given from not
  // The text given for the field `key` ("tensor-parallel-size"), "" when not given.
  std::string text(const std::string& key) const;
};

// --tp/--tensor-parallel-size and --pp only (trace).
void add_parallelism_flags(CLI::App* app, ServerFlags& f);
// The fields named by their scenario keys ("kv-cache-memory"), added to a command that already has
// the parallelism flags (trace --secondary-tier-size: the GPU pool in front of the tiers).
void add_named_server_flags(CLI::App* app, ServerFlags& f, const std::vector<std::string>& keys);
// Every server flag vLLM's `serve` and kvbench's tier take (size, simulate).
void add_server_flags(CLI::App* app, ServerFlags& f);
// The same but the parallelism flags (calibrate, whose --tp is also the GEMM timer's rank count).
void add_serve_flags(CLI::App* app, ServerFlags& f);

// --max-model-len / --ctx alone (report's default assessment): the same spelling as the server
// field's, and parse_context_flag the same parser, so a context length is an integer once read at
// the edge.
CLI::Option* add_context_flag(CLI::App* app, std::string& text, const std::string& help);
std::int64_t parse_context_flag(const std::string& text);

bool pp_given(const ServerFlags& f);
// Whether any server flag was given (simulate rewrites the scenario's server only then).
bool any_server_flag(const ServerFlags& f);

// Applies the flags given onto `v`, in the table's order: the one place a server flag becomes a
// server field. Ranges are checked on the 64-bit value before any narrowing; UsageError names the flag.
void apply_server_flags(const ServerFlags& f, ServeSettings& v);

}  // namespace kvb

#pragma once
// The server as flags, for every subcommand that takes one (size, simulate, trace, calibrate,
// report): --model and --hw, declared here once with the one default hardware
// (server/server_spec.hpp), and the fields of the one table of server fields
// (sim/server_fields.hpp), so a flag is spelled, parsed and applied in one place. Each command
// states at its one call which of them it takes and what --model and --hw mean to it
// (ServerFlagSet). A flag not given leaves the server as it stands: vLLM's defaults for size,
// trace and report, the scenario's keys for simulate.
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "server/serve_settings.hpp"

namespace kvb {

// What --model and --hw mean to a command; each is worded once, in server_flags.cpp.
enum class ModelUse {
  kSizeTable,         // size: a model and a GPU, or comma lists of them (a table)
  kScenarioOverride,  // simulate: each over the scenario's (--hw also --hardware); none: the scenario's
  kOneModel,          // trace: one model, required
  kTimedModel,        // calibrate: the model timed (default llama-3.1-8b); --hw auto: the device's
  kAssessment,        // report: no --model (its --models); --hw default: the detected GPU
};
// Where --hw is not given: kDefaultHardware for size and trace, a scenario without a hardware key,
// calibrate --from-vllm under --hw auto, and report where it detects no GPU in the table.

// kExcluded: not --tp/--pp (calibrate, whose own --tp is also the GEMM timer's rank count).
enum class Parallelism { kIncluded, kExcluded };

// kPoolOnly: only the fields that change the GPU KV pool or a token's KV bytes (ServerField::sizes_pool),
// for the commands that read nothing of the tiers from the server (trace, report).
enum class FieldScope { kAll, kPoolOnly };

struct ServerFlagSet {
  explicit ServerFlagSet(ModelUse m, Parallelism p = Parallelism::kIncluded, FieldScope s = FieldScope::kAll)
      : model(m), parallelism(p), scope(s) {}
  ModelUse model;
  Parallelism parallelism;
  FieldScope scope;
  std::string help_prefix;                  // before every field's help ("default assessment: ")
  std::map<std::string, std::string> help;  // a field's own help, by key, where the command's default differs
};

struct ServerFlags {
  std::string model;                         // --model as given ("" when not given, but calibrate's default)
  std::string hw;                            // --hw as given, else the command's default (ModelUse)
  std::map<std::string, std::string> given;  // by scenario key: the text given ("" when not given)
  CLI::App* app = nullptr;                   // to tell --pp and --hw given from not
  // The text given for the field `key` ("tensor-parallel-size"), "" when not given.
  std::string text(const std::string& key) const;
  bool hw_given() const;
};

// Registers --model and --hw as `set.model` says and the table's fields `set` picks; returns the
// options added (report refuses its assessment's flags beside result files).
std::vector<CLI::Option*> add_server_flags(CLI::App* app, ServerFlags& f, const ServerFlagSet& set);

bool pp_given(const ServerFlags& f);
// Neither --tp, --pp nor --dp: size's, trace's and report's configuration search picks them.
bool parallelism_given(const ServerFlags& f);
// Whether any server field's flag was given (simulate rewrites the scenario's server only then);
// --model and --hw are not fields.
bool any_server_flag(const ServerFlags& f);

// Applies the flags given onto `v`, in the table's order: the one place a server flag becomes a
// server field. Ranges are checked on the 64-bit value before any narrowing; UsageError names the flag.
void apply_server_flags(const ServerFlags& f, ServeSettings& v);

}  // namespace kvb

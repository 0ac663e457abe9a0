#include "cli/from_vllm_log.hpp"

#include <fmt/format.h>

#include "catalog/model_catalog.hpp"
#include "catalog/vllm_host_memory.hpp"
#include "cli/output_flags.hpp"
#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {

LoggedServer logged_server(const VllmStartupLog& log, const ServerFlags& given, const std::string& name) {
  LoggedServer out;
  ServerFlags from_log;
  for (const auto& [key, text] : log.server_keys) from_log.given[key] = text;
  if (!log.release.empty()) {
    try {
      (void)parse_vllm_version(log.release, "vllm-version");
      from_log.given["vllm-version"] = log.release;
    } catch (const UsageError&) {
      // A release before the native CPU tier (0.11): sized as kvbench's default release.
    }
  }
  try {
    apply_server_flags(from_log, out.serve);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: as logged, {}", name, e.what()));
  }
  for (const auto& [key, text] : from_log.given) {
    if (given.text(key).empty()) {
      out.from_log.emplace_back(key, text);
    } else if (given.text(key) != text) {
      out.overridden.push_back(fmt::format("{} {} (the log's: {})", key, given.text(key), text));
    }
  }
  apply_server_flags(given, out.serve);
  out.serve.tensor_parallel_auto = false;  // the log's TP (vLLM's default 1 when it states none)
  return out;
}

ModelSpec logged_model(const VllmStartupLog& log, const std::string& model_flag, const std::string& name) {
  if (!model_flag.empty()) {
    if (model_flag.find(',') != std::string::npos)
      throw UsageError("--from-vllm-log: expected one --model (the log is one server)");
    std::vector<std::string> warnings;
    auto m = resolve_model(model_flag, warnings);
    for (const auto& w : warnings) print_warning(w);
    return m;
  }
  for (const auto& m : log.models)
    if (const auto* spec = find_catalog_model(m)) return *spec;
  if (log.models.empty()) {
    throw UsageError(
        fmt::format("{}: the log does not name the model it serves; expected --model NAME (kvbench size "
                    "--list-models) or "
                    "--model a config.json",
                    name));
  }
  throw UsageError(fmt::format(
      "{}: the model it serves ('{}') is not in kvbench's catalog; expected --model NAME (kvbench size "
      "--list-models) or --model its config.json",
      name, join(log.models, "', '")));
}

}  // namespace kvb

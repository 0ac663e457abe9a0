#pragma once
// size --from-vllm-log: the server a vLLM start-up log describes, as the server flags would give
// it, with the flags given on the command line over the log's; and the model it serves.
#include <string>
#include <utility>
#include <vector>

#include "catalog/model_spec.hpp"
#include "catalog/vllm_startup_log.hpp"
#include "cli/server_flags.hpp"

namespace kvb {

struct LoggedServer {
  ServeSettings serve;
  std::vector<std::pair<std::string, std::string>> from_log;  // keys the log set (key, text)
  std::vector<std::string> overridden;                        // flags given over the log's value
};

// vLLM's defaults, then the log's keys (read by the flags' own readers: a value out of range is a
// UsageError naming the log), then the flags given. `name` names the log in errors.
LoggedServer logged_server(const VllmStartupLog& log, const ServerFlags& given, const std::string& name);

// --model when given, else the first name the log serves that is in kvbench's catalog; UsageError
// naming the log's model and asking for --model when none is.
ModelSpec logged_model(const VllmStartupLog& log, const std::string& model_flag, const std::string& name);

}  // namespace kvb

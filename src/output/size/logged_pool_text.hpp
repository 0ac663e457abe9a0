#pragma once
// size --from-vllm-log's lines: which figures came from the log, the pool as logged beside
// kvbench's own estimate, what the command line gave over the log, what was not taken.
#include <string>

#include "size/logged_pool.hpp"

namespace kvb {

// `log_name` as the user gave it (printable); `hw_name` the GPU sized on. Ends in a blank line.
std::string logged_pool_text(const LoggedPool& p, const std::string& log_name, const std::string& hw_name);

}  // namespace kvb

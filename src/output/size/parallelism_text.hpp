#pragma once
// size's data and expert parallelism in words: the server's shape in the heading, the
// configuration search's DP x EP try and why it was or was not chosen, and the CPU tier per
// engine (size/sizing.hpp, size/sizing_advice.hpp hold the facts).
#include <string>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

// "TP 8, PP 1" or "DP 8 x TP 1, EP 8, PP 1".
std::string parallelism_label(const Sizing& s);
// The summary table's "TP x PP": "8", or "8 x 2" with pipeline stages.
std::string tp_by_pp_label(const ResolvedServer& v);
// The GPUs the server takes: one engine's ranks x DP.
int server_gpus(const Sizing& s);
// Why the search chose DP x EP over the TP configuration it found, or kept TP.
std::string data_parallel_tried_text(const DataParallelTried& d, std::int64_t tokens);
// Under DP: each engine's own tier and the host memory of all of them (empty at DP 1).
std::vector<std::string> engine_tier_lines(const Sizing& s);

}  // namespace kvb

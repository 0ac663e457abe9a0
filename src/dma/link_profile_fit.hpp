#pragma once
// A `kvbench dma` result fitted into the model's link (perf/link_curve.hpp): each direction's
// t = t0 + bytes / B over every block size measured (dma/link_fit.hpp). Here, in the benchmark's
// folder, so that the time model, sizing and the simulator never link the benchmark: the commands
// that take a dma profile read it and hand the model a LinkProfile.
#include <string>
#include <vector>

#include "dma/dma_record.hpp"
#include "perf/link_curve.hpp"

namespace kvb {

// Reads kvbench/dma/v1 JSON and fits each direction from the verified, unwaived one-way records of
// `method` on the first device in the file. UsageError naming the file when it lacks them or has
// fewer than two block sizes in a direction.
LinkProfile link_profile_from_dma_json(const std::string& path, Method method);

// The same from records already in memory; `origin` names them in messages and in the source.
LinkProfile link_profile_from_dma_records(const std::vector<DmaRecord>& records, Method method,
                                          const std::string& origin);

}  // namespace kvb

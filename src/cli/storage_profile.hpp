#pragma once
// simulate --storage-profile FILE: a secondary tier's read and write rates from a `kvbench storage`
// result (storage/storage_json.hpp), measured rather than stated.
#include <optional>
#include <string>

#include "advise/workload_sizing.hpp"
#include "perf/link_curve.hpp"
#include "sim/scenario.hpp"

namespace kvb {

// The scenario with its secondary tier's rates set from `file`: the records (not waived, every
// read verified) at the chunk size nearest the tier's chunk (one block on one rank, as vLLM's
// file-system tier writes a file per block and rank), a file per chunk preferred where measured
// (the layout of vLLM's tier), the fastest median of each direction there. UsageError, one line,
// without a secondary tier, with rates also stated, or with no usable record.
Scenario with_storage_profile(const Scenario& s, const std::string& file,
                              const std::optional<LinkProfile>& link);

// size --storage-profile: the rates measured at the chunk of the flags' server (r.serve, r.model,
// r.hardware), written into r.serve, as simulate reads them.
void apply_storage_profile(WorkloadSizingRequest& r, const std::string& file);

}  // namespace kvb

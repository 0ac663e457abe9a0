#pragma once
// The link a reload estimate used (perf/link_curve.hpp's LinkProfile) as a fact in a result
// document, read back whole, so that output/common/link_origin_text words a read-back document as
// it words a live run.
#include <nlohmann/json.hpp>
#include <string>

#include "perf/link_curve.hpp"

namespace kvb {

// {"origin": {"figures": "table-measured", "hardware": "h100", "measured_by": "...", "file": "",
//  "device": "", "method": "", "block_sizes": 0, "host_backend": false},
//  "h2d": {"gbps": 52.1, "per_copy_s": 3.5e-06}, "d2h": {...}, "kernel_compute_slowdown": 1.2,
//  "slowdown_origin": {"hardware": "h100", "file": "", "records": 0} | null}
// figures: "datasheet", "table-measured" or "fitted".
nlohmann::json link_profile_to_json(const LinkProfile& p);
// What `link_profile_to_json` wrote. UsageError naming `where` and the field for a missing or
// mistyped field, a number out of its range, or a figures name kvbench does not write.
LinkProfile link_profile_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kvb

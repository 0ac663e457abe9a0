#pragma once
// doctor's --tier-dir checks in words (output/doctor/doctor_check_text words the others): what the
// directory is, what its file system means for a KV tier, and where each threshold comes from.
#include "doctor/node_checks.hpp"
#include "output/doctor/doctor_check_text.hpp"

namespace kvb {

CheckWords words(const CheckResult& c, const TierDirFinding& f);
CheckWords words(const CheckResult& c, const TierFsFinding& f);
CheckWords words(const CheckResult& c, const TierSpaceFinding& f);
CheckWords words(const CheckResult& c, const TierDirectFinding& f);
CheckWords words(const CheckResult& c, const TierRateFinding& f);

// "memory, not disk: ..." for the kind a file system is (the fs check's verdict in words).
std::string fs_kind_text(const std::string& fs_name, FsKind kind);

}  // namespace kvb

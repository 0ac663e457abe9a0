#pragma once
// The git commit this binary was built from (cmake/WriteBuildCommit.cmake writes its definition at
// build time): the short hash, "-dirty" when the tree differed from it, or "unknown".
namespace kvb {
const char* build_commit();
}  // namespace kvb

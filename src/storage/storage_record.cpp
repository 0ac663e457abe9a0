#include "storage/storage_record.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

PassFigures pass_figures(std::vector<double> samples_s, double bytes) {
  PassFigures f;
  f.samples_s = std::move(samples_s);
  if (f.samples_s.empty()) return f;
  const auto t = summarize(f.samples_s);
  auto gbps = [&](double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; };
  f.median_gbps = gbps(t.median);
  f.p10_gbps = gbps(t.p90);
  f.p90_gbps = gbps(t.p10);
  f.relative_noise = t.relative_noise;
  return f;
}

std::string to_string(CacheBypass b) {
  return b == CacheBypass::kDirectIo ? "o_direct" : "fdatasync+fadvise_dontneed";
}

CacheBypass parse_cache_bypass(const std::string& text, const std::string& what) {
  if (text == "o_direct") return CacheBypass::kDirectIo;
  if (text == "fdatasync+fadvise_dontneed") return CacheBypass::kFadviseDontneed;
  throw UsageError(
      fmt::format("{}: page_cache '{}'; expected o_direct or fdatasync+fadvise_dontneed", what, text));
}

void require_verified(const std::vector<StorageRecord>& records) {
  for (const auto& r : records) {
    if (!r.waived && !r.verified)
      throw CheckFailed(fmt::format("storage: {} read back wrong data: {}", r.tcase.id(), r.verify_detail));
  }
}

}  // namespace kvb

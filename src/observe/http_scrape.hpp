#pragma once
// One GET of a /metrics endpoint through libcurl, bounded: a connect timeout, a total timeout
// (a server that stalls), a cap on the body (bounded memory), at most a few redirects, and only
// HTTP 200 with text. Each failure is a one-line UsageError naming the URL (exit 2).
#include <cstddef>
#include <string>

namespace kvb {

struct ScrapeLimits {
  double timeout_s = 10;              // the whole request, connection included
  double connect_timeout_s = 5;       // capped at timeout_s
  std::size_t max_bytes = 32u << 20;  // vLLM's /metrics is tens of KiB; 32 MiB is far beyond any engine's
  long max_redirects = 3;
};

// The body of `url` (http:// or https:// only).
std::string scrape_metrics(const std::string& url, const ScrapeLimits& limits);

}  // namespace kvb

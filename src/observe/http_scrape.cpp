// libcurl's easy interface (https://curl.se/libcurl/c/): Debian's libcurl4-openssl-dev.
#include "observe/http_scrape.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "kvbench_config.hpp"

namespace kvb {
namespace {

struct Body {
  std::string text;
  std::size_t max_bytes = 0;
  bool too_large = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t n, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t bytes = size * n;
  if (body->text.size() + bytes > body->max_bytes) {
    body->too_large = true;
    return 0;  // libcurl stops with CURLE_WRITE_ERROR
  }
  body->text.append(data, bytes);
  return bytes;
}

// Ctrl-C or SIGTERM during a scrape ends it now rather than at --timeout.
int on_progress(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return interrupt_requested() ? 1 : 0;
}

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw DeviceError("libcurl failed to initialise");
  });
}

void set_options(CURL* c, const std::string& url, const ScrapeLimits& limits, Body& body) {
  const auto ms = [](double s) { return static_cast<long>(s * 1000); };
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, limits.max_redirects);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms(limits.timeout_s));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms(std::min(limits.connect_timeout_s, limits.timeout_s)));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM (main owns the signals)
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(limits.max_bytes));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "kvbench/" KVBENCH_VERSION);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
}

std::string transfer_error(const std::string& url, CURLcode code, const ScrapeLimits& limits,
                           const Body& body, const char* detail) {
  if (body.too_large || code == CURLE_FILESIZE_EXCEEDED)
    return fmt::format("{}: the answer exceeds {} MiB; expected a /metrics page", url,
                       limits.max_bytes >> 20);
  if (code == CURLE_OPERATION_TIMEDOUT)
    return fmt::format("{}: no complete answer within {} s (--timeout): the server stalled or is unreachable",
                       url, limits.timeout_s);
  if (code == CURLE_TOO_MANY_REDIRECTS)
    return fmt::format("{}: more than {} redirects; expected the metrics endpoint itself", url,
                       limits.max_redirects);
  if (code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT)
    return fmt::format(
        "{}: not an http:// or https:// URL ({}); expected for example http://host:8000/metrics", url,
        detail);
  return fmt::format("{}: {}; expected a server answering at that URL", url,
                     detail[0] != '\0' ? detail : curl_easy_strerror(code));
}

// Prometheus' text format is text/plain (version 0.0.4); OpenMetrics is accepted as the same lines.
void check_answer(CURL* c, const std::string& url) {
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200)
    throw UsageError(fmt::format("{}: HTTP status {}; expected 200 with the metrics", url, status));
  const char* type = nullptr;
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
  const std::string content = type != nullptr ? type : "";
  if (!content.empty() && content.rfind("text/plain", 0) != 0 &&
      content.rfind("application/openmetrics-text", 0) != 0)
    throw UsageError(
        fmt::format("{}: content type '{}'; expected text/plain (the Prometheus text format)", url, content));
}

}  // namespace

std::string scrape_metrics(const std::string& url, const ScrapeLimits& limits) {
  init_curl_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> c(curl_easy_init(), &curl_easy_cleanup);
  if (!c) throw DeviceError("libcurl could not start a request");
  Body body;
  body.max_bytes = limits.max_bytes;
  char detail[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c.get(), CURLOPT_ERRORBUFFER, detail);
  set_options(c.get(), url, limits, body);
  const CURLcode code = curl_easy_perform(c.get());
  if (code == CURLE_ABORTED_BY_CALLBACK) throw Interrupted();
  if (code != CURLE_OK) throw UsageError(transfer_error(url, code, limits, body, detail));
  check_answer(c.get(), url);
  return std::move(body.text);
}

}  // namespace kvb

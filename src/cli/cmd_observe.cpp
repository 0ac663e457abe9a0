// `kvbench observe URL` (or --from A --to B): a serving engine's /metrics read over a window, its
// counters turned into rates, explained, and a one-line verdict on the CPU KV tier.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "cli/command.hpp"
#include "cli/output_flags.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "observe/http_scrape.hpp"
#include "observe/observe_window.hpp"
#include "observe/prom_text.hpp"
#include "output/observe/observe_json.hpp"

namespace kvb {
namespace {

struct ObserveOptions {
  std::string url;
  std::string from, to, seconds;
  std::string interval = "10", duration = "30", timeout = "10";
  bool explain = false;
  OutputFlags out;
};

struct Scrape {
  PromExposition metrics;
  std::chrono::steady_clock::time_point at;
};

Scrape scrape_once(const std::string& url, const ScrapeLimits& limits) {
  auto body = scrape_metrics(url, limits);
  return {parse_prom_text(body, url), std::chrono::steady_clock::now()};
}

// Waits `seconds`, waking for a signal; false when one arrived.
bool wait_for(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (interrupt_requested()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !interrupt_requested();
}

// Scrapes every --interval for --duration; each step is checked (a counter that falls between two
// scrapes is refused), and the window is the first scrape to the last. A signal keeps what was
// scraped when that is two scrapes or more.
ObserveResult observe_url(const ObserveOptions& o, ObserveSources& sources) {
  ScrapeLimits limits;
  limits.timeout_s = parse_seconds(o.timeout, "--timeout");
  const double interval = parse_seconds(o.interval, "--interval");
  const double duration = parse_seconds(o.duration, "--duration");
  if (duration < interval)
    throw UsageError(
        fmt::format("--duration {} is shorter than --interval {}; expected a window of one "
                    "interval or more",
                    o.duration, o.interval));
  const int steps = static_cast<int>(duration / interval + 1e-9);
  const Scrape first = scrape_once(o.url, limits);
  Scrape last = first;
  int scrapes = 1;
  for (int i = 0; i < steps && wait_for(interval); ++i) {
    Scrape next = scrape_once(o.url, limits);
    observe_window(last.metrics, next.metrics, std::chrono::duration<double>(next.at - last.at).count(),
                   o.url);
    last = std::move(next);
    ++scrapes;
  }
  if (scrapes < 2) throw Interrupted();
  sources = {o.url, o.url, scrapes, "clock", scrapes < steps + 1};
  return observe_window(first.metrics, last.metrics,
                        std::chrono::duration<double>(last.at - first.at).count(), o.url);
}

// The seconds between two dumps: --seconds, else their modification times.
double dump_seconds(const ObserveOptions& o, ObserveSources& sources) {
  if (!o.seconds.empty()) {
    sources.seconds_from = "given";
    return parse_real_in(o.seconds, "--seconds", 0, 1e7, "60");
  }
  std::error_code ec_a, ec_b;
  const auto a = std::filesystem::last_write_time(o.from, ec_a);
  const auto b = std::filesystem::last_write_time(o.to, ec_b);
  const double s = std::chrono::duration<double>(b - a).count();
  if (ec_a || ec_b || !(s > 0))
    throw UsageError(
        fmt::format("--from and --to: their modification times do not say how far apart they were "
                    "scraped ({} s); expected --seconds S",
                    s));
  sources.seconds_from = "mtime";
  return s;
}

ObserveResult observe_dumps(const ObserveOptions& o, ObserveSources& sources) {
  if (o.from.empty() || o.to.empty())
    throw UsageError("--from and --to go together: the earlier dump and the later one");
  const auto before = parse_prom_text(read_text_file(o.from, "--from", kMaxResultInputBytes), o.from);
  const auto after = parse_prom_text(read_text_file(o.to, "--to", kMaxResultInputBytes), o.to);
  sources.before = o.from;
  sources.after = o.to;
  return observe_window(before, after, dump_seconds(o, sources), o.to);
}

// observe's printers: the table (with each figure's meaning under --explain), kvbench/observe/v1.
struct ObserveAnswer {
  ObserveDocument doc;
  bool explain = false;
};
const Printers<ObserveAnswer> kObservePrinters{
    {OutputFormat::kTable,
     [](const ObserveAnswer& a) { return observe_text(a.doc.result, a.doc.sources, a.explain); }},
    {OutputFormat::kJson,
     [](const ObserveAnswer& a) { return json_text(observe_json(a.doc.result, a.doc.sources), 1); }}};

int run_observe(const ObserveOptions& o) {
  const auto format = chosen_format(o.out);
  const bool dumps = !o.from.empty() || !o.to.empty();
  if (dumps == !o.url.empty())
    throw UsageError(
        "give either a URL (kvbench observe http://host:8000/metrics) or --from FILE --to FILE, "
        "not both and not neither");
  if (!dumps && !o.seconds.empty())
    throw UsageError("--seconds goes with --from/--to; a URL's window is timed");
  ObserveSources sources;
  const auto result = dumps ? observe_dumps(o, sources) : observe_url(o, sources);
  emit_result(o.out, format, kObservePrinters, ObserveAnswer{{result, sources}, o.explain});
  return kExitOk;
}

}  // namespace

Command register_observe(CLI::App& parent) {
  auto o = std::make_shared<ObserveOptions>();
  auto* app = parent.add_subcommand(
      "observe",
      "read a live vLLM, SGLang or LMCache /metrics over a window: rates, what they mean, and "
      "whether the CPU KV tier pays");
  app->add_option("url", o->url, "the metrics endpoint, e.g. http://host:8000/metrics");
  app->add_option("--interval", o->interval, "seconds between scrapes (2s, 500ms)")->capture_default_str();
  app->add_option("--duration", o->duration, "the window: first scrape to last")->capture_default_str();
  app->add_option("--timeout", o->timeout, "the most one scrape may take, connection included")
      ->capture_default_str();
  app->add_option("--from", o->from, "instead of a URL: a saved dump of /metrics, the earlier one");
  app->add_option("--to", o->to, "the later saved dump");
  app->add_option("--seconds", o->seconds,
                  "seconds between the two dumps (default: their modification times)");
  app->add_flag("--explain", o->explain,
                "under each figure: the metric read, its source file and what it means");
  add_output_flags(app, o->out, formats_of(kObservePrinters), kObserveSchema);
  return Command{app, [o] { return run_observe(*o); }};
}

}  // namespace kvb

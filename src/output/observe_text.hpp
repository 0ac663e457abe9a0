#pragma once
// kvbench observe's text and JSON (schema kvbench/observe/v1): the figures with their rates, the
// release's metric names and the verdict, worded once by output/observe_words for both.
#include <nlohmann/json.hpp>
#include <string>

#include "observe/observe_window.hpp"

namespace kvb {

// Where the two scrapes came from.
struct ObserveSources {
  std::string before;  // a URL or a dump's path
  std::string after;
  int scrapes = 2;
  std::string seconds_from;  // "clock" (timed scrapes), "given" (--seconds), "mtime" (the dumps' times)
  bool interrupted = false;  // a signal cut the window short: it ends at the last scrape finished
};

// `explain`: each figure's metric, meaning and source file under its line.
std::string observe_text(const ObserveResult& r, const ObserveSources& s, bool explain);

nlohmann::json observe_json(const ObserveResult& r, const ObserveSources& s);

}  // namespace kvb

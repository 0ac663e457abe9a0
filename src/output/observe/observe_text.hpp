#pragma once
// kvbench observe's text: the figures with their rates, the release's metric names and the
// verdict, worded by output/observe/observe_words as its JSON is (output/observe/observe_json.hpp).
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

// One reading as the text shows it: a counter's change and rate, or a gauge's value, and the share
// it is of its lookups where both were read.
std::string reading_text(const ObserveResult& r, const Reading& reading);

// `explain`: each figure's metric, meaning and source file under its line.
std::string observe_text(const ObserveResult& r, const ObserveSources& s, bool explain);

}  // namespace kvb

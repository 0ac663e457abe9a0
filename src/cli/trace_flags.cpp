#include "cli/trace_flags.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/units.hpp"

namespace kvb {

void add_trace_reading_flags(CLI::App* app, TraceFlags& f) {
  app->add_option("--trace-block-tokens", f.block_tokens, "tokens per hash id (Mooncake: 512)")
      ->capture_default_str();
  app->add_option("--trace-speed", f.speed, "time scale: arrivals divided by this")->capture_default_str();
  app->add_option("--trace-sample", f.sample, "share of prefix trees kept, chosen by their first block")
      ->capture_default_str();
  app->add_option("--trace-limit", f.limit, "at most this many requests (0: all)")->capture_default_str();
}

TraceOptions parse_trace_options(const TraceFlags& f) {
  TraceOptions t;
  t.block_tokens = parse_int_in(f.block_tokens, "--trace-block-tokens", 1, 1 << 20);
  t.speed = parse_real_in(f.speed, "--trace-speed", 0, 1e6, "2");
  t.sample = parse_real_in(f.sample, "--trace-sample", 0, 1, "0.1");
  t.limit = parse_positive_int(f.limit, "--trace-limit", true, kMaxCount);
  return t;
}

void note_sample_over_fleet(const TraceOptions& options, int replicas) {
  if (replicas <= 1 || options.sample >= 1) return;
  std::fputs(
      fmt::format("kvbench: note: --trace-sample {:g} with {} replicas: a fleet's trace is the whole "
                  "cluster's traffic, and the {} replicas share {:.3g}% of it (--trace-sample 1 replays "
                  "the cluster; a sample stands for one server's share)\n",
                  options.sample, replicas, replicas, options.sample * 100)
          .c_str(),
      stderr);
}

}  // namespace kvb

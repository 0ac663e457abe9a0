#pragma once
// The trace-reading flags `trace`, `simulate --trace` and `size --trace` share, parsed one way.
#include <CLI/CLI.hpp>
#include <string>

#include "trace/trace_reader.hpp"

namespace kvb {

struct TraceFlags {
  std::string file;
  std::string block_tokens = "512", speed = "1", sample = "1", limit = "0";
};

// Adds --trace-block-tokens, --trace-speed, --trace-sample and --trace-limit (the file is the
// caller's: a positional for `trace`, --trace for the others).
void add_trace_reading_flags(CLI::App* app, TraceFlags& flags);
TraceOptions parse_trace_options(const TraceFlags& flags);
// A fleet replays a cluster's trace whole: a sample taken over `replicas` > 1 shrinks the cluster's
// traffic, not one server's share of it. Said on stderr (the run goes on: a small fleet's share
// may be what was meant).
void note_sample_over_fleet(const TraceOptions& options, int replicas);

}  // namespace kvb

#pragma once
// kvbench JSONL written from the requests a trace reader gave (`kvbench trace --write-jsonl`), so a
// converted vLLM request log can replace the log, which holds the prompts: one {"arrival_s",
// "prompt_tokens", "output_tokens", "hash_ids"} a line. The block ids are renumbered from 0 in the
// order first seen: equal ids stay equal and distinct ones distinct, every id lies below the 2^62
// the reader takes, and no hash of a prompt's tokens is written.
#include <cstdint>
#include <string>
#include <unordered_map>

#include "trace/trace_request.hpp"

namespace kvb {

class TraceJsonlWriter {
 public:
  void add(const TraceRequest& r);
  const std::string& text() const { return text_; }

 private:
  std::unordered_map<std::uint64_t, std::uint64_t> ids_;
  std::string text_;
};

}  // namespace kvb

#include "trace/trace_jsonl.hpp"

#include <fmt/format.h>

namespace kvb {

void TraceJsonlWriter::add(const TraceRequest& r) {
  // fmt's shortest form of a double reads back as the same double.
  text_ += fmt::format(R"({{"arrival_s": {}, "prompt_tokens": {}, "output_tokens": {}, "hash_ids": [)",
                       r.arrival_s, r.prompt_tokens, r.output_tokens);
  for (std::size_t i = 0; i < r.block_ids.size(); ++i) {
    const auto [it, added] = ids_.try_emplace(r.block_ids[i], ids_.size());
    (void)added;
    text_ += fmt::format("{}{}", i == 0 ? "" : ", ", it->second);
  }
  text_ += "]}\n";
}

}  // namespace kvb

#pragma once
// One request of a recorded trace, as every trace format reads into it: when it arrived, its
// lengths, and its prompt as a list of block ids (requests that share leading ids share that
// prefix). A format that records no reuse (a CSV of lengths) gives each request ids of its own.
#include <cstdint>
#include <vector>

namespace kvb {

struct TraceRequest {
  double arrival_s = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  std::vector<std::uint64_t> block_ids;  // one per block_tokens of the prompt (the last may be partial)
};

}  // namespace kvb

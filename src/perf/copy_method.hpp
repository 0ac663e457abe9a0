#pragma once
// How KV blocks cross the host link: one copy-engine call per block (vLLM's native tier up to
// 0.19), the batched copy API, or a copy kernel on the GPU's SMs. One enum for what `kvbench dma`
// measures and for which of its records describe a server's link (size, simulate).
#include <string>

namespace kvb {

enum class Method { kCe, kCeBatch, kKernel };

std::string to_string(Method m);  // ce, ce-batch, kernel
// UsageError naming `what` and the accepted values.
Method parse_method(const std::string& s, const std::string& what);

}  // namespace kvb

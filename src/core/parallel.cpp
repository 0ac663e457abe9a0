#include "core/parallel.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace kvb {

std::size_t parallel_range_count(std::size_t n, std::size_t min_per_range) {
  const std::size_t hw = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
  const std::size_t by_size = std::max<std::size_t>(1, n / std::max<std::size_t>(min_per_range, 1));
  return std::min(hw, by_size);
}

void parallel_ranges(std::size_t n, std::size_t min_per_range,
                     const std::function<void(std::size_t begin, std::size_t end)>& body) {
  const std::size_t ranges = parallel_range_count(n, min_per_range);
  if (ranges <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  std::vector<std::exception_ptr> errors(ranges);
  std::vector<std::thread> threads;
  threads.reserve(ranges);
  for (std::size_t t = 0; t < ranges; ++t) {
    const std::size_t begin = n * t / ranges;
    const std::size_t end = n * (t + 1) / ranges;
    threads.emplace_back([&, t, begin, end] {
      try {
        body(begin, end);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace kvb

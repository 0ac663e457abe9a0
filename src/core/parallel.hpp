#pragma once
// Splits [0, n) into contiguous ranges over the machine's hardware threads (at most 16) for
// set-up and verification work that would otherwise dwarf the timed copies it serves.
#include <cstddef>
#include <functional>

namespace kvb {

// Calls body(begin, end) once per range, concurrently; serial when n is small or one thread is
// available. The first exception thrown by a range is rethrown after all ranges end.
void parallel_ranges(std::size_t n, std::size_t min_per_range,
                     const std::function<void(std::size_t begin, std::size_t end)>& body);

// How many ranges parallel_ranges would use for n items.
std::size_t parallel_range_count(std::size_t n, std::size_t min_per_range);

}  // namespace kvb

#pragma once
// Units are explicit everywhere: GiB = 2^30, GB = 10^9, bandwidth in GB/s (decimal).
#include <cstdint>
#include <string>
#include <string_view>

namespace kvb {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;

struct ParsedBytes {
  std::uint64_t bytes = 0;
  std::string meaning;  // how the text was read, e.g. "2 MiB (binary, 2^20)"
};

// Parses "2MB" (10^6), "2MiB" (2^20), "3.81GiB", "4GB", "4096" or "4096B".
// `what` names the input in the error message (e.g. "--block").
ParsedBytes parse_bytes(std::string_view text, std::string_view what);

// Parses a token count the way vLLM does: "131072", "128k" (k = 1000), "128K" (K = 1024),
// "1m"/"1M", "25.6k". Rejects zero, negatives and fractions of a token.
std::int64_t parse_token_count(std::string_view text, std::string_view what);

// Parses a positive integer ("8"); rejects "8x", "-1", "0" unless allow_zero.
std::int64_t parse_positive_int(std::string_view text, std::string_view what, bool allow_zero = false);

// A plain decimal number (no sign, no exponent: the one number syntax of every kvbench option);
// UsageError naming `what` otherwise.
double parse_plain_real(std::string_view text, std::string_view what);
// Parses a real number in (lo, hi].
double parse_real_in(std::string_view text, std::string_view what, double lo, double hi);
// A CPU tier size in GiB (vLLM's --kv-offloading-size): a plain number from 0 (an empty tier) to
// 1,000,000 (about 1 PiB, beyond any node); UsageError in words otherwise.
double parse_gib_size(std::string_view text, std::string_view what);

// A latency target: "2s", "500ms", "250us", or a plain number of seconds; above 0 and at most
// one hour. UsageError naming `what` otherwise.
double parse_seconds(std::string_view text, std::string_view what);

std::string format_bytes_binary(double bytes);   // "3.81 GiB", "2.00 MiB", "512 B"
std::string format_bytes_decimal(double bytes);  // "4.09 GB"
std::string format_count(std::int64_t n);        // "31,232"
std::string format_block_size(std::uint64_t bytes);  // "4 KiB", "2 MiB", "1000 B": exact, as block sizes are given
std::string format_seconds(double seconds);      // "12.3 ms", "4.1 s", "850 us"

}  // namespace kvb

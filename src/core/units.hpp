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

// The largest count any kvbench option takes unless it states a smaller one: every count fits an
// int, so no narrowing anywhere can wrap (--tp 4294967297 is refused, never read as 1).
inline constexpr std::int64_t kMaxCount = 2'147'483'647;
// The most tokens a token count may be (--max-model-len, a result file's gpu_kv_tokens).
inline constexpr std::int64_t kMaxTokens = 1'000'000'000'000;
// The largest CPU tier, GiB (about 1 PiB, beyond any node): parse_gib_size's upper end.
inline constexpr double kMaxTierGib = 1e6;

// Parses a positive integer ("8") up to `hi`; rejects "8x", "-1", "0" unless allow_zero, and
// anything above `hi` with the range in the message.
std::int64_t parse_positive_int(std::string_view text, std::string_view what, bool allow_zero = false,
                                std::int64_t hi = kMaxCount);

// Parses an integer in [lo, hi] (decimal digits only); UsageError naming `what` and the range.
std::int64_t parse_int_in(std::string_view text, std::string_view what, std::int64_t lo, std::int64_t hi);

// A plain decimal number (no sign, no exponent: the one number syntax of every kvbench option);
// UsageError naming `what` otherwise.
double parse_plain_real(std::string_view text, std::string_view what);
// Parses a real number in (lo, hi]; the message's example is `example` (default: a value inside
// the range, so "--alpha" never suggests 0.9 for a level below 0.5).
double parse_real_in(std::string_view text, std::string_view what, double lo, double hi,
                     std::string_view example = "");
// A CPU tier size in GiB (vLLM's --kv-offloading-size): a plain number from 0 (an empty tier) to
// 1,000,000 (about 1 PiB, beyond any node); UsageError in words otherwise.
double parse_gib_size(std::string_view text, std::string_view what);

// A latency target: "2s", "500ms", "250us", or a plain number of seconds; above 0 and at most
// one hour. UsageError naming `what` otherwise.
double parse_seconds(std::string_view text, std::string_view what);

std::string format_bytes_binary(double bytes);   // "3.81 GiB", "2.00 MiB", "512 B", "0.4 B"
std::string format_bytes_decimal(double bytes);  // "4.09 GB"
std::string format_count(std::int64_t n);
std::string format_plain_number(
    double v);  // a bound as a person writes it: 1000000, 0.01, 1e-05        // "31,232"
std::string format_block_size(
    std::uint64_t bytes);                    // "4 KiB", "2 MiB", "1000 B": exact, as block sizes are given
std::string format_seconds(double seconds);  // "12.3 ms", "4.1 s", "850 us"

}  // namespace kvb

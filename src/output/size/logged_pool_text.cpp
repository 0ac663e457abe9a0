#include "output/size/logged_pool_text.hpp"

#include <fmt/format.h>

#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

// "the vLLM 0.23.0 start-up log (FILE)".
std::string log_words(const LoggedPool& p, const std::string& log_name) {
  return p.release.empty() ? fmt::format("the vLLM start-up log ({}; it names no release)", log_name)
                           : fmt::format("the vLLM {} start-up log ({})", p.release, log_name);
}

// "18,038 GPU blocks (288,608 tokens) as logged".
std::string pool_words(const LoggedPool& p) {
  if (p.blocks_logged) {
    return p.tokens_logged ? fmt::format("{} GPU blocks ({} tokens) as logged", format_count(p.blocks),
                                         format_count(*p.tokens_logged))
                           : fmt::format("{} GPU blocks as logged", format_count(p.blocks));
  }
  return fmt::format("{} GPU blocks of {} tokens ({} tokens as logged)", format_count(p.blocks), p.block_size,
                     format_count(p.tokens_logged.value_or(0)));
}

// The estimate is for --hw's GPU: a log does not name its GPU, so it checks kvbench's memory model
// only where --hw is the server's.
std::string estimate_words(const LoggedPool& p, const std::string& hw_name) {
  if (p.blocks <= 0)
    return fmt::format("kvbench's own estimate for --hw {} would be {} blocks", hw_name,
                       format_count(p.estimate_blocks));
  const double off =
      100.0 * static_cast<double>(p.estimate_blocks - p.blocks) / static_cast<double>(p.blocks);
  return fmt::format("kvbench's own estimate for --hw {} would be {} blocks ({:+.1f}%)", hw_name,
                     format_count(p.estimate_blocks), off);
}

std::string detail_lines(const LoggedPool& p, const std::string& hw_name) {
  std::string out;
  if (p.kv_gib_logged && p.blocks > 0) {
    out += fmt::format("  logged \"Available KV cache memory: {:.2f} GiB\"; {} blocks x {} = {:.2f} GiB\n",
                       *p.kv_gib_logged, format_count(p.blocks), format_bytes_binary(p.block_bytes),
                       static_cast<double>(p.blocks) * p.block_bytes / kGiB);
  }
  if (p.reports > 1) {
    out += p.reports_agree ? fmt::format("  the pool was logged {} times, the same each time\n", p.reports)
                           : fmt::format(
                                 "  the pool was logged {} times with different figures: the smallest is "
                                 "taken (vLLM sizes every rank to the smallest)\n",
                                 p.reports);
  }
  if (p.tokens_not_whole_blocks) {
    out +=
        "  the logged tokens are not a whole number of kvbench's blocks: the server's block size differs "
        "from this layout's (pass --block-size)\n";
  }
  std::vector<std::string> taken;
  for (const auto& [key, text] : p.from_log) taken.push_back(fmt::format("{} {}", key, text));
  if (!taken.empty()) out += fmt::format("  from the log: {}\n", join(taken, ", "));
  if (!p.overridden.empty())
    out += fmt::format("  given on the command line over the log's: {}\n", join(p.overridden, ", "));
  if (!p.not_taken.empty())
    out += fmt::format("  in the log, not taken by kvbench: {}\n", join(p.not_taken, "; "));
  out += fmt::format("  GPU: --hw {} (a start-up log does not name the GPU)\n", hw_name);
  return out;
}

}  // namespace

std::string logged_pool_text(const LoggedPool& p, const std::string& log_name, const std::string& hw_name) {
  std::string out;
  if (p.pool_given) {
    out = fmt::format(
        "From {}: --kv-cache-memory given on the command line replaces the logged pool "
        "({}); kvbench's own estimate for --hw {} would be {} blocks\n",
        log_words(p, log_name), pool_words(p), hw_name, format_count(p.estimate_blocks));
  } else {
    out = fmt::format("From {}: {}; {}\n", log_words(p, log_name), pool_words(p), estimate_words(p, hw_name));
  }
  return out + detail_lines(p, hw_name) + "\n";
}

}  // namespace kvb

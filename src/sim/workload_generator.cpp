#include "sim/workload_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/errors.hpp"

namespace kvb {
namespace {

enum SegmentTag : std::uint64_t { kSystem = 1, kDocument = 2, kUser = 3, kOutput = 4 };

std::uint64_t segment_id(SegmentTag tag, std::int64_t a, std::int64_t b = 0) {
  return hash_mix(hash_mix(static_cast<std::uint64_t>(tag), static_cast<std::uint64_t>(a)),
                  static_cast<std::uint64_t>(b));
}

}  // namespace

std::vector<std::uint64_t> block_hashes(const std::vector<Segment>& segments, int block_size) {
  std::int64_t total = 0;
  for (const auto& s : segments) total += s.tokens;
  std::vector<std::uint64_t> out;
  out.reserve(static_cast<std::size_t>(total / block_size));
  std::uint64_t h = 0x6b7662656e6368ULL;  // chain seed
  std::int64_t filled = 0;                // tokens in the current block
  for (const auto& seg : segments) {
    std::int64_t offset = 0;
    while (offset < seg.tokens) {
      const std::int64_t piece = std::min(seg.tokens - offset, block_size - filled);
      h = hash_mix(hash_mix(hash_mix(h, seg.id), static_cast<std::uint64_t>(offset)),
                   static_cast<std::uint64_t>(piece));
      offset += piece;
      filled += piece;
      if (filled == block_size) {
        out.push_back(h);
        filled = 0;
      }
    }
  }
  return out;
}

WorkloadGenerator::WorkloadGenerator(const WorkloadSpec& spec, std::uint64_t seed, int block_size,
                                     std::int64_t max_model_len, std::string origin)
    : spec_(spec),
      block_size_(block_size),
      max_model_len_(max_model_len),
      origin_(std::move(origin)),
      arrivals_(Rng::derive(seed, 1)),
      content_(Rng::derive(seed, 2)),
      remaining_requests_(spec.requests) {
  Rng fixed_content(Rng::derive(seed, 3));
  for (int p = 0; p < spec_.system_prefixes; ++p)
    prefix_tokens_.push_back(spec_.system_prefix.sample_count(fixed_content, 0));
  double total_weight = 0;
  for (int d = 0; d < spec_.documents; ++d) {
    document_tokens_.push_back(spec_.document_tokens.sample_count(fixed_content, 1));
    total_weight += 1.0 / std::pow(d + 1.0, spec_.document_zipf);
    document_cdf_.push_back(total_weight);
  }
  for (auto& c : document_cdf_) c /= total_weight;
}

std::optional<SimTime> WorkloadGenerator::next_session_start() {
  if (remaining_requests_ <= 0) return std::nullopt;
  const auto& a = spec_.arrival;
  if (a.process == ArrivalProcess::kClosed) return SimTime{};
  if (a.process == ArrivalProcess::kFixed)
    return sim_time_at(static_cast<double>(sessions_started_) / a.rate, "a session's start");
  // Each gap rounded to the nanosecond once: the clock sums integers, so it does not drift.
  clock_ += to_sim_duration(arrivals_.exponential(1.0 / a.rate), "a gap between sessions");
  if (a.process == ArrivalProcess::kBursty) {
    // Poisson at `rate` during bursts; time spent in the idle gaps is skipped over.
    const auto burst = to_sim_duration(a.burst_seconds, "burst-seconds");
    const auto idle = to_sim_duration(a.idle_seconds, "idle-seconds");
    while (clock_ > burst_start_ + burst) {
      const auto overflow = clock_ - (burst_start_ + burst);
      burst_start_ += burst + idle;
      clock_ = burst_start_ + overflow;
    }
  }
  return clock_;
}

Session WorkloadGenerator::repeat_of(std::int64_t id, const FirstTurn& earlier) {
  Session s;
  s.id = id;
  s.content_id = earlier.content_id;
  s.context = earlier.context;
  s.user_tokens.push_back(earlier.user_tokens);
  std::int64_t context = 0;
  for (const auto& seg : s.context) context += seg.tokens;
  // The reply may be drawn longer than the earlier one; it still has to fit max-model-len.
  s.output_tokens.push_back(
      std::clamp<std::int64_t>(spec_.output.sample_count(content_, 1), 1,
                               std::max<std::int64_t>(1, max_model_len_ - context - earlier.user_tokens)));
  s.think.push_back(SimDuration{});
  s.turns = 1;
  --remaining_requests_;
  return s;
}

// The session's shared context: a system prefix, then a document (round robin or drawn by its
// weight), in the order the content stream draws them.
void WorkloadGenerator::draw_context(Session& s) {
  if (!prefix_tokens_.empty()) {
    const auto p = static_cast<std::int64_t>(content_.below(prefix_tokens_.size()));
    if (prefix_tokens_[static_cast<std::size_t>(p)] > 0) {
      s.context.push_back({segment_id(kSystem, p), prefix_tokens_[static_cast<std::size_t>(p)]});
    }
  }
  if (!document_cdf_.empty() && spec_.documents_round_robin) {
    const auto d = s.id % static_cast<std::int64_t>(document_tokens_.size());
    s.context.push_back({segment_id(kDocument, d), document_tokens_[static_cast<std::size_t>(d)]});
  } else if (!document_cdf_.empty()) {
    const double u = content_.uniform();
    const auto it = std::lower_bound(document_cdf_.begin(), document_cdf_.end(), u);
    const auto d = std::min<std::ptrdiff_t>(it - document_cdf_.begin(),
                                            static_cast<std::ptrdiff_t>(document_cdf_.size()) - 1);
    s.context.push_back({segment_id(kDocument, d), document_tokens_[static_cast<std::size_t>(d)]});
  }
}

Session WorkloadGenerator::start_session() {
  // repeat-share: this session sends an earlier session's first turn again, word for word.
  if (spec_.repeat_share > 0 && !first_turns_.empty() && content_.uniform() < spec_.repeat_share) {
    const auto& earlier = first_turns_[static_cast<std::size_t>(content_.below(first_turns_.size()))];
    return repeat_of(sessions_started_++, earlier);
  }
  Session s;
  s.id = sessions_started_++;
  s.content_id = s.id;
  draw_context(s);
  const int drawn_turns = static_cast<int>(spec_.turns.sample_count(content_, 1));
  std::int64_t total = 0;
  for (const auto& seg : s.context) total += seg.tokens;
  for (int t = 0; t < drawn_turns && remaining_requests_ > 0; ++t) {
    auto user = spec_.prompt.sample_count(content_, 1);
    auto out = spec_.output.sample_count(content_, 1);
    const auto think =
        t == 0 ? SimDuration{} : to_sim_duration(spec_.think_time.sample(content_), "a think time");
    if (total + user + out > max_model_len_) {
      // The conversation no longer fits --max-model-len: the user starts a new one. A first turn
      // that does not fit is refused as vLLM refuses it, or (over-length: clip) trimmed to fit, as
      // a client truncating its prompt would, and counted.
      if (t > 0) break;
      if (!spec_.clip_long_prompts) {
        throw UsageError(
            fmt::format("{}: a first turn of {} tokens (context {} + prompt {} + output {}) exceeds "
                        "max-model-len {}, which vLLM rejects; expected a max-model-len that holds the "
                        "workload, shorter prompts, or workload key over-length: clip",
                        origin_, total + user + out, total, user, out, max_model_len_));
      }
      ++clipped_prompts_;
      out = std::min<std::int64_t>(out, std::max<std::int64_t>(1, max_model_len_ / 4));
      user = std::max<std::int64_t>(1, max_model_len_ - total - out);
      if (total + user + out > max_model_len_) {  // the shared context alone is too long
        s.context.clear();
        total = 0;
        user = std::max<std::int64_t>(1, max_model_len_ - out);
      }
    }
    total += user + out;
    s.user_tokens.push_back(user);
    s.output_tokens.push_back(out);
    s.think.push_back(think);
    --remaining_requests_;
  }
  s.turns = static_cast<int>(s.user_tokens.size());
  if (spec_.repeat_share > 0 && s.turns > 0)
    first_turns_.push_back({s.context, s.user_tokens.front(), s.content_id});
  return s;
}

SimRequest WorkloadGenerator::make_request(const Session& s, int turn, SimTime arrival,
                                           std::int64_t request_id) const {
  std::vector<Segment> segs = s.context;
  for (int j = 0; j < turn; ++j) {
    segs.push_back({segment_id(kUser, s.content_id, j), s.user_tokens[static_cast<std::size_t>(j)]});
    segs.push_back({segment_id(kOutput, s.content_id, j), s.output_tokens[static_cast<std::size_t>(j)]});
  }
  segs.push_back({segment_id(kUser, s.content_id, turn), s.user_tokens[static_cast<std::size_t>(turn)]});
  SimRequest r;
  r.id = request_id;
  r.session = s.id;
  r.turn = turn;
  r.arrival = arrival;
  for (const auto& seg : segs) r.prompt_tokens += seg.tokens;
  r.output_tokens = s.output_tokens[static_cast<std::size_t>(turn)];
  segs.push_back({segment_id(kOutput, s.content_id, turn), r.output_tokens});
  r.block_hashes = block_hashes(segs, block_size_);
  return r;
}

}  // namespace kvb

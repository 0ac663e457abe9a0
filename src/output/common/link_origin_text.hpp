#pragma once
// Where a link profile's figures came from, in words, with the figures: simulate's "Link" line and
// its document's link_model, size's reload estimate, the kernel method's slowdown note, and the
// warning for a profile the host backend measured.
#include <string>

#include "perf/link_curve.hpp"

namespace kvb {

// "measured: --link-profile '...' (NVIDIA H200, method ce, fitted t = t0 + bytes/B over 9 block
// sizes: h2d 55.1 GB/s + 2.70 us per block copy, d2h ...)"; "hardware table (h100), measured: ...";
// "hardware table (b200): ... (datasheet figures, soft: not measured)".
std::string link_source_text(const LinkProfile& link);
// size's reload estimate: a --link-profile's fit as above, else the table's link in size's words.
std::string reload_link_text(const LinkProfile& link, bool given);
// "" unless the host backend measured the profile.
std::string link_warning_text(const LinkProfile& link);
std::string slowdown_source_text(const SlowdownOrigin& origin);

}  // namespace kvb

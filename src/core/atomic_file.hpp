#pragma once
// Result and report files are written atomically: a temporary file beside the target, flushed,
// then renamed over it, so a reader never sees half a file and a failed write loses nothing.
#include <string>
#include <string_view>

namespace kvb {

// Throws UsageError naming the path when the directory is missing or not writable.
void write_file_atomically(const std::string& path, std::string_view content);

// Checked before a long measurement or simulation, so a mistyped -o fails in a second, not after
// the run: the directory must exist and be writable, and the path must not be a directory.
void require_writable_output(const std::string& path);

}  // namespace kvb

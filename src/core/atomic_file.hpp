#pragma once
// Result and report files are written atomically: a temporary file beside the target, flushed,
// then renamed over it, so a reader never sees half a file and a failed write loses nothing.
#include <string>
#include <string_view>

namespace kvb {

// An output the user named (-o) follows a symlink to its target, as the shell's > would; one that
// kvbench names itself in a directory (report --save-json DIR) replaces a link found there.
enum class LinkRule { kFollow, kReplaceLink };

// Throws UsageError naming the path when the directory is missing or not writable, or when the
// path is a file this run read (compare b.json h.json -o b.json would destroy the baseline).
// The temporary is created with O_EXCL|O_NOFOLLOW (a link planted at its name is never
// followed); an existing file keeps its mode and, where the process may set it, its owner.
void write_file_atomically(const std::string& path, std::string_view content,
                           LinkRule rule = LinkRule::kFollow);

// Every input file kvbench reads is noted here (core/json_file does it), so that no output can
// replace one of them: same device and inode, whatever the path spelling or links.
void note_input_file(const std::string& path);

// Checked before a long measurement or simulation, so a mistyped -o fails in a second, not after
// the run: the directory must exist and be writable, and the path must not be a directory.
void require_writable_output(const std::string& path, LinkRule rule = LinkRule::kFollow);

}  // namespace kvb

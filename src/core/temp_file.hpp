#pragma once
// The one temporary file every writer uses (atomic outputs, calibrate --from-vllm's replay
// traces): created with O_EXCL under a short unique name (".kvb-XXXXXX": an output name of 255
// bytes, legal, leaves no room for a suffix), every write and the close checked, and removed on
// every exit path: by the destructor, and by a second signal's immediate exit (core/interrupt).
#include <string>
#include <string_view>

namespace kvb {

class TempFile {
 public:
  // In `dir`; UsageError "<what>: cannot create ..." when it cannot be created.
  TempFile(const std::string& dir, const std::string& what);
  // In $TMPDIR (/tmp when unset); UsageError naming TMPDIR when it is not a writable directory.
  static TempFile in_tmpdir(const std::string& what);
  TempFile(TempFile&& other) noexcept;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile();  // removes the file unless it was renamed into place

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Each checked: UsageError "<what>: write failed (No space left on device)".
  void write(std::string_view content);
  void close();  // fsync and close
  // Renames the closed file over `target` (which is not followed if a link); nothing is left to remove.
  void rename_to(const std::string& target);

 private:
  [[noreturn]] void fail(const char* step, int err);
  int fd_ = -1;
  int slot_ = -1;  // core/interrupt's record of it
  std::string path_, what_;
};

}  // namespace kvb

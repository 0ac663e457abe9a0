// kvbench storage end to end on a scratch directory: every byte written is read back and checked,
// a chunk corrupted on disk between the passes is caught, and no file is left behind.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/errors.hpp"
#include "storage/io_pass.hpp"
#include "storage/storage_run.hpp"

namespace kvb {
namespace {

// A fresh directory in the test's working directory (under the build tree), removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    char name[] = "storage-test-XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~ScratchDir() { ::rmdir(path_.c_str()); }
  const std::string& path() const { return path_; }
  int entries() const {
    int n = 0;
    DIR* d = ::opendir(path_.c_str());
    while (const auto* e = ::readdir(d)) n += e->d_name[0] == '.' ? 0 : 1;
    ::closedir(d);
    return n;
  }

 private:
  std::string path_;
};

StorageCase small_case(StorageLayout layout, IoEngine engine) {
  return StorageCase{
      layout, IoMode::kBuffered, engine, 64 * 1024, 12, 3, engine == IoEngine::kThreads ? 1 : 4, 42};
}

// Flips one byte of chunk 5 where the layout keeps it.
void corrupt_chunk_5(ChunkFiles& files) {
  const int fd = ::open(files.chunk_path(5).c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const off_t at = files.offset(5) + 4099;
  unsigned char b = 0;
  ASSERT_EQ(::pread(fd, &b, 1, at), 1);
  b ^= 0x01;
  ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
  ::close(fd);
}

class StorageRun : public ::testing::TestWithParam<std::tuple<StorageLayout, IoEngine>> {};

TEST_P(StorageRun, EveryChunkComesBackAndNothingIsLeft) {
  const auto [layout, engine] = GetParam();
  if (engine == IoEngine::kIoUring && !io_uring_built()) GTEST_SKIP() << "built without liburing";
  ScratchDir dir;
  const auto facts = probe_storage_dir(dir.path());
  StorageRunSettings s;
  s.repeats = 2;
  const auto r = run_storage_case(facts, small_case(layout, engine), s);
  ASSERT_FALSE(r.waived) << r.waive_reason;
  EXPECT_TRUE(r.verified) << r.verify_detail;
  EXPECT_EQ(r.bytes_per_pass, 12.0 * 64 * 1024);  // conservation: chunks x chunk, each way
  EXPECT_EQ(r.write.samples_s.size(), 2u);
  EXPECT_EQ(r.read.samples_s.size(), 2u);
  EXPECT_EQ(dir.entries(), 0);
}

TEST_P(StorageRun, AChunkCorruptedOnDiskFailsVerification) {
  const auto [layout, engine] = GetParam();
  if (engine == IoEngine::kIoUring && !io_uring_built()) GTEST_SKIP() << "built without liburing";
  ScratchDir dir;
  StorageRunSettings s;
  s.after_write = corrupt_chunk_5;
  const auto r = run_storage_case(probe_storage_dir(dir.path()), small_case(layout, engine), s);
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.verify_detail.find("chunk 5 byte 4096"), std::string::npos) << r.verify_detail;
  EXPECT_EQ(r.read.samples_s.size(), 1u);  // the case stops at the first bad pass
  EXPECT_EQ(dir.entries(), 0);
}

TEST_P(StorageRun, AChunkFileGoneIsAnIoErrorNamingItAndTheRestIsRemoved) {
  const auto [layout, engine] = GetParam();
  if (engine == IoEngine::kIoUring && !io_uring_built()) GTEST_SKIP() << "built without liburing";
  if (layout == StorageLayout::kPerRankFile) GTEST_SKIP() << "one file: its descriptor stays open";
  ScratchDir dir;
  StorageRunSettings s;
  s.after_write = [](ChunkFiles& files) { ::unlink(files.chunk_path(7).c_str()); };
  try {
    run_storage_case(probe_storage_dir(dir.path()), small_case(layout, engine), s);
    ADD_FAILURE() << "a missing chunk file read without an error";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("-7.kv"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dir.entries(), 0);
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndEngines, StorageRun,
                         ::testing::Combine(::testing::Values(StorageLayout::kFilePerChunk,
                                                              StorageLayout::kPerRankFile),
                                            ::testing::Values(IoEngine::kThreads, IoEngine::kIoUring)));

TEST(StorageRunWaiver, ADirectCaseWhereODirectIsRefusedIsSkippedWithTheReason) {
  StorageDirFacts d;
  d.path = "/unused";
  d.direct_refusal = direct_refusal_text(EINVAL);
  auto c = small_case(StorageLayout::kPerRankFile, IoEngine::kThreads);
  c.mode = IoMode::kDirect;
  const auto r = run_storage_case(d, c, {});
  EXPECT_TRUE(r.waived);
  EXPECT_EQ(r.waive_reason, d.direct_refusal);
}

}  // namespace
}  // namespace kvb

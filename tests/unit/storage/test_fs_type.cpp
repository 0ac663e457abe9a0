// statfs(2)'s f_type to a file system's name and kind, against the kernel's magic numbers as
// /usr/include/linux/magic.h and the statfs(2) man page list them (Lustre's LL_SUPER_MAGIC from
// lustre_user.h), and a directory's facts whatever its state.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>

#include "core/errors.hpp"
#include "storage/fs_type.hpp"
#include "storage/storage_dir.hpp"

namespace kvb {
namespace {

struct Row {
  std::uint64_t magic;
  const char* name;
  FsKind kind;
};

TEST(FsType, NamesAndKindsByTheKernelsMagicNumbers) {
  const Row rows[] = {
      {0xEF53, "ext4", FsKind::kLocal},            // EXT4_SUPER_MAGIC (ext2, ext3 too)
      {0x58465342, "xfs", FsKind::kLocal},         // XFS_SUPER_MAGIC "XFSB"
      {0x9123683E, "btrfs", FsKind::kLocal},       // BTRFS_SUPER_MAGIC
      {0x01021994, "tmpfs", FsKind::kMemory},      // TMPFS_MAGIC
      {0x858458F6, "ramfs", FsKind::kMemory},      // RAMFS_MAGIC
      {0x958458F6, "hugetlbfs", FsKind::kMemory},  // HUGETLBFS_MAGIC
      {0x794C7630, "overlay", FsKind::kOverlay},   // OVERLAYFS_SUPER_MAGIC
      {0x6969, "nfs", FsKind::kNetwork},           // NFS_SUPER_MAGIC
      {0x517B, "smb", FsKind::kNetwork},           // SMB_SUPER_MAGIC
      {0xFF534D42, "cifs", FsKind::kNetwork},      // CIFS_SUPER_MAGIC
      {0xFE534D42, "smb2", FsKind::kNetwork},      // SMB2_SUPER_MAGIC
      {0x65735546, "fuse", FsKind::kNetwork},      // FUSE_SUPER_MAGIC
      {0x00C36400, "ceph", FsKind::kNetwork},      // CEPH_SUPER_MAGIC
      {0x01021997, "9p", FsKind::kNetwork},        // V9FS_MAGIC
      {0x0BD00BD0, "lustre", FsKind::kNetwork},    // LL_SUPER_MAGIC
  };
  for (const auto& r : rows) {
    const auto t = classify_fs(r.magic);
    EXPECT_EQ(t.name, r.name) << std::hex << r.magic;
    EXPECT_EQ(t.kind, r.kind) << r.name;
    EXPECT_EQ(t.magic, r.magic) << r.name;
  }
  const auto unknown = classify_fs(0x1234);
  EXPECT_EQ(unknown.name, "0x1234");
  EXPECT_EQ(unknown.kind, FsKind::kUnknown);
}

// f_type is a signed long on some ABIs: CIFS's magic, sign-extended, is still CIFS.
TEST(FsType, ReadsTheLow32BitsOfASignExtendedFType) {
  const auto extended =
      static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(0xFF534D42)));
  EXPECT_EQ(classify_fs(extended).name, "cifs");
  EXPECT_EQ(fs_type_name(static_cast<long>(static_cast<std::int32_t>(0xFF534D42))), "cifs");
}

TEST(FsType, KindsSpellBackAndOthersAreRefused) {
  for (const auto k : {FsKind::kLocal, FsKind::kMemory, FsKind::kNetwork, FsKind::kOverlay, FsKind::kUnknown})
    EXPECT_EQ(parse_fs_kind(to_string(k), "kind"), k);
  EXPECT_THROW(parse_fs_kind("disk", "kind"), UsageError);
}

TEST(StorageDirInspect, GivesAMissingDirectoryAndAFileAsFactsNotErrors) {
  const auto missing = inspect_storage_dir("/nonexistent/kvbench-tier");
  EXPECT_EQ(missing.problem, DirProblem::kMissing);
  EXPECT_FALSE(missing.problem_errno.empty());
  EXPECT_EQ(missing.fs_magic, 0u);
  const auto file = inspect_storage_dir("/proc/self/status");
  EXPECT_EQ(file.problem, DirProblem::kNotDirectory);
  EXPECT_EQ(file.fs_type, "0x9fa0");  // PROC_SUPER_MAGIC: statfs still reads a file's file system
}

TEST(StorageDirInspect, AWritableDirectoryHasItsSpaceAndTheKernelsODirectAnswer) {
  const auto dir = std::filesystem::temp_directory_path() / "kvbench-fs-type-test";
  std::filesystem::create_directories(dir);
  const auto d = inspect_storage_dir(dir.string());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(d.problem, DirProblem::kNone);
  EXPECT_GT(d.total_bytes, 0u);
  EXPECT_LE(d.free_bytes, d.total_bytes);
  EXPECT_NE(d.fs_magic, 0u);
  EXPECT_TRUE(d.direct_supported || !d.direct_refusal.empty());
}

TEST(StorageDirInspect, DevShmIsMemory) {
  struct stat st {};
  if (::stat("/dev/shm", &st) != 0) GTEST_SKIP() << "no /dev/shm here";
  const auto d = inspect_storage_dir("/dev/shm");
  if (d.fs_type != "tmpfs") GTEST_SKIP() << "/dev/shm is " << d.fs_type << " here";
  EXPECT_EQ(d.fs_kind, FsKind::kMemory);
  EXPECT_EQ(d.fs_magic, 0x01021994u);
}

}  // namespace
}  // namespace kvb

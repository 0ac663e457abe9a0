#include "storage/fs_type.hpp"

#include <fmt/format.h>

#include <array>

#include "core/errors.hpp"

namespace kvb {
namespace {

struct KnownFs {
  std::uint32_t magic;
  const char* name;
  FsKind kind;
};

// Magic numbers: linux/magic.h and statfs(2) (man7.org/linux/man-pages/man2/statfs.2.html); the
// out-of-tree ones from their sources (ZFS_SUPER_MAGIC in OpenZFS, LL_SUPER_MAGIC in Lustre's
// lustre_user.h, GPFS, BEEGFS_MAGIC in BeeGFS), as GNU coreutils' stat.c lists them with
// local/remote. ext2, ext3 and ext4 share one magic.
constexpr std::array<KnownFs, 24> kKnown = {{
    {0xEF53, "ext4", FsKind::kLocal},          {0x58465342, "xfs", FsKind::kLocal},
    {0x9123683E, "btrfs", FsKind::kLocal},     {0x2FC12FC1, "zfs", FsKind::kLocal},
    {0xF2F52010, "f2fs", FsKind::kLocal},      {0x3434, "nilfs", FsKind::kLocal},
    {0x2011BAB0, "exfat", FsKind::kLocal},     {0x01021994, "tmpfs", FsKind::kMemory},
    {0x858458F6, "ramfs", FsKind::kMemory},    {0x958458F6, "hugetlbfs", FsKind::kMemory},
    {0x794C7630, "overlay", FsKind::kOverlay}, {0x6969, "nfs", FsKind::kNetwork},
    {0x517B, "smb", FsKind::kNetwork},         {0xFF534D42, "cifs", FsKind::kNetwork},
    {0xFE534D42, "smb2", FsKind::kNetwork},    {0x65735546, "fuse", FsKind::kNetwork},
    {0x00C36400, "ceph", FsKind::kNetwork},    {0x0BD00BD0, "lustre", FsKind::kNetwork},
    {0x47504653, "gpfs", FsKind::kNetwork},    {0x19830326, "beegfs", FsKind::kNetwork},
    {0x01021997, "9p", FsKind::kNetwork},      {0x5346414F, "afs", FsKind::kNetwork},
    {0x6B414653, "afs", FsKind::kNetwork},     {0x73757245, "coda", FsKind::kNetwork},
}};

}  // namespace

std::string to_string(FsKind k) {
  switch (k) {
    case FsKind::kLocal:
      return "local";
    case FsKind::kMemory:
      return "memory";
    case FsKind::kNetwork:
      return "network";
    case FsKind::kOverlay:
      return "overlay";
    case FsKind::kUnknown:
      return "unknown";
  }
  return "unknown";
}

FsKind parse_fs_kind(const std::string& text, const std::string& what) {
  for (const auto k :
       {FsKind::kLocal, FsKind::kMemory, FsKind::kNetwork, FsKind::kOverlay, FsKind::kUnknown}) {
    if (text == to_string(k)) return k;
  }
  throw UsageError(fmt::format("{}: '{}'; expected local, memory, network, overlay or unknown", what, text));
}

FsType classify_fs(std::uint64_t f_type) {
  const auto magic = static_cast<std::uint32_t>(f_type & 0xffffffffULL);
  for (const auto& k : kKnown) {
    if (k.magic == magic) return {k.name, magic, k.kind};
  }
  return {fmt::format("0x{:x}", magic), magic, FsKind::kUnknown};
}

}  // namespace kvb

#pragma once
// A directory's file system from statfs(2)'s f_type, and what kind of storage it is: a KV tier
// on memory takes host DRAM from the CPU tier, one on a network file system shares its bandwidth
// and pays the network's latency, one on overlay is a container's writable layer, not a volume.
#include <cstdint>
#include <string>

namespace kvb {

enum class FsKind { kLocal, kMemory, kNetwork, kOverlay, kUnknown };
std::string to_string(FsKind k);  // "local", "memory", "network", "overlay", "unknown"
// UsageError naming `what` for any other spelling.
FsKind parse_fs_kind(const std::string& text, const std::string& what);

struct FsType {
  std::string name;  // "ext4", "tmpfs", "nfs", ...; "0x..." when the magic is not in the table
  std::uint32_t magic = 0;
  FsKind kind = FsKind::kUnknown;
};

// f_type's low 32 bits (the kernel's magic numbers are 32-bit; f_type is signed on some ABIs).
FsType classify_fs(std::uint64_t f_type);

}  // namespace kvb

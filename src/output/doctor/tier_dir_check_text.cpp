#include "output/doctor/tier_dir_check_text.hpp"

#include <fmt/format.h>

#include "core/path_text.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

std::string bytes_text(double b) { return format_bytes_binary(b); }

std::string where(const StorageDirFacts& d) { return printable_path(d.path); }

}  // namespace

std::string fs_kind_text(const std::string& fs_name, FsKind kind) {
  switch (kind) {
    case FsKind::kLocal:
      return "a local file system";
    case FsKind::kMemory:
      return "memory, not disk: a disk tier here takes host DRAM, the memory the CPU tier and MemAvailable "
             "count; give that memory to the CPU tier instead, or put this tier on a disk";
    case FsKind::kNetwork:
      return fmt::format(
          "a network file system{}: every chunk pays the network's latency and its bandwidth is shared "
          "with every client that mounts it; measure it under load (kvbench storage --dir)",
          fs_name == "fuse" ? " (FUSE: a user-space mount, most often of a network or object store)" : "");
    case FsKind::kOverlay:
      return "overlay: the container's writable layer, not a volume: the tier's files land in the runtime's "
             "storage on the node's root disk and go with the container; mount a volume there (a hostPath "
             "or a local persistent volume)";
    case FsKind::kUnknown:
      return "not in kvbench's table of file systems";
  }
  return "";
}

CheckWords words(const CheckResult&, const TierDirFinding& f) {
  std::string source =
      "the engine creates the tier's files there: vLLM's file-system tier and LMCache's local_disk one "
      "file per chunk, the Simple connector's disk backend one file per rank (docs/storage.md)";
  const auto& d = f.dir;
  switch (d.problem) {
    case DirProblem::kNone:
      return {where(d) + ": a directory this user can create files in", source};
    case DirProblem::kMissing:
      return {
          fmt::format("{}: {}: the tier's directory is not there (not mounted?)", where(d), d.problem_errno),
          source};
    case DirProblem::kNotDirectory:
      return {where(d) + ": not a directory", source};
    case DirProblem::kNotWritable:
      return {
          fmt::format("{}: not writable by this user ({}): the engine cannot create the tier's files there",
                      where(d), d.problem_errno),
          source};
    case DirProblem::kCannotCreate:
      return {fmt::format("{}: cannot create a file there ({})", where(d), d.problem_errno), source};
  }
  return {"", source};
}

CheckWords words(const CheckResult&, const TierFsFinding& f) {
  std::string source =
      "statfs(2)'s f_type against the kernel's magic numbers (linux/magic.h); a disk tier belongs on a "
      "local disk";
  const auto& d = f.dir;
  if (d.problem == DirProblem::kMissing) return {"not read: the directory is missing", source};
  if (d.problem == DirProblem::kNotDirectory) return {"not read: the path is not a directory", source};
  if (d.fs_magic == 0) return {"statfs failed: the file system is unknown", source};
  // An unknown type's name is its magic number: words first, as the table right-aligns a figure.
  if (d.fs_kind == FsKind::kUnknown)
    return {fmt::format("f_type 0x{:x}: {}", d.fs_magic, fs_kind_text(d.fs_type, d.fs_kind)), source};
  return {fmt::format("{} (f_type 0x{:x}): {}", d.fs_type, d.fs_magic, fs_kind_text(d.fs_type, d.fs_kind)),
          source};
}

CheckWords words(const CheckResult& c, const TierSpaceFinding& f) {
  std::string source =
      "the tier's size (--tier-dir-size) must fit the free space (statvfs f_bavail x f_frsize); the Simple "
      "connector preallocates its per-rank file (vllm-project/vllm#49644), LMCache's local_disk stops at "
      "max_local_disk_size, but vLLM's file-system tier has no bound before RFC vllm-project/vllm#54779 "
      "(#52784: no code path deletes a block file): its disk use grows with the traffic's distinct prefixes";
  const auto& d = f.dir;
  if (c.status == CheckStatus::kSkip)
    return {d.problem == DirProblem::kMissing        ? "not read: the directory is missing"
            : d.problem == DirProblem::kNotDirectory ? "not read: the path is not a directory"
                                                     : "statvfs failed",
            source};
  // Words first: the table right-aligns a cell that starts with a figure.
  const auto has = fmt::format("free space {} of {}", bytes_text(static_cast<double>(d.free_bytes)),
                               bytes_text(static_cast<double>(d.total_bytes)));
  if (!f.size_bytes) return {has + "; no --tier-dir-size to hold it against", source};
  return {fmt::format("{}: the {} tier {}", has, bytes_text(*f.size_bytes),
                      c.status == CheckStatus::kFail ? "does not fit" : "fits"),
          source};
}

CheckWords words(const CheckResult& c, const TierDirectFinding& f) {
  std::string source =
      "one probe file created with O_DIRECT and removed (kvbench storage's probe); the Simple connector's "
      "disk backend writes its per-rank file with O_DIRECT pwritev/preadv (vllm-project/vllm#49644)";
  if (c.status == CheckStatus::kSkip) return {"not probed: the directory cannot take files", source};
  if (f.dir.direct_supported) return {"O_DIRECT accepted: I/O can bypass the page cache", source};
  return {f.dir.direct_refusal +
              ": the Simple connector's disk backend cannot use this directory; buffered writers (LMCache's "
              "local_disk by default) go through the page cache, which takes host memory",
          source};
}

CheckWords words(const CheckResult& c, const TierRateFinding& f) {
  const auto source =
      f.needs_gbps
          ? fmt::format("--tier-dir-needs-gbps: each direction must reach {:.2f} GB/s", *f.needs_gbps)
          : std::string(
                "kvbench storage's engine on a 64 MiB sample; kvbench storage --dir sweeps chunk "
                "sizes, threads and queue depths");
  const auto& m = f.rate;
  if (!m.waived.empty()) return {fmt::format("{} not measured: {}", m.how, m.waived), source};
  auto detail = fmt::format(
      "{} over {}: write {:.2f} GB/s, read {:.2f} GB/s (medians of 3 passes, every chunk verified)", m.how,
      bytes_text(m.bytes), m.write_gbps, m.read_gbps);
  if (c.status == CheckStatus::kFail)
    detail += fmt::format(": below the {:.2f} GB/s the tier needs", *f.needs_gbps);
  return {detail, source};
}

}  // namespace kvb

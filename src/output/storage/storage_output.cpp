#include "output/storage/storage_output.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "output/common/text_table.hpp"

namespace kvb {

std::string cache_bypass_text(CacheBypass b) {
  if (b == CacheBypass::kDirectIo) return "O_DIRECT: reads and writes bypass the page cache";
  return "after the write pass fdatasync (per-rank file) or syncfs (file per chunk), then "
         "posix_fadvise(POSIX_FADV_DONTNEED) on every file before the read pass; best effort, the kernel may "
         "keep pages it cannot drop";
}

std::string io_uring_text(bool built) {
  return built ? "io_uring: built (liburing)"
               : "io_uring: not built (liburing was not found at build time); threads with pread/pwrite only";
}

std::string gpudirect_text() {
  return "GPUDirect Storage (cuFile): not built; this build has no cuFile, nothing was measured GPU-direct";
}

namespace {

std::string gb(double v) { return fmt::format("{:.2f}", v); }

std::string table(const StorageDocument& doc) {
  TextTable t({"layout", "mode", "engine", "chunk", "chunks", "thr", "qd", "write GB/s", "p10-p90",
               "read GB/s", "p10-p90", "passes", "verified"});
  for (const auto& r : doc.records) {
    const auto& c = r.tcase;
    std::vector<std::string> row = {to_string(c.layout),          to_string(c.mode),
                                    to_string(c.engine),          format_block_size(c.chunk_bytes),
                                    std::to_string(c.chunks),     std::to_string(c.threads),
                                    std::to_string(c.queue_depth)};
    if (r.waived) {
      row.push_back("skipped: " + r.waive_reason);
      t.add_spanning_row(row);
      continue;
    }
    for (auto&& cell : {gb(r.write.median_gbps), gb(r.write.p10_gbps) + "-" + gb(r.write.p90_gbps),
                        gb(r.read.median_gbps), gb(r.read.p10_gbps) + "-" + gb(r.read.p90_gbps),
                        std::to_string(r.read.samples_s.size()), std::string(r.verified ? "yes" : "NO")}) {
      row.push_back(cell);
    }
    t.add_row(row);
  }
  return t.render();
}

std::string notes(const StorageDocument& doc) {
  std::string out;
  for (const auto& r : doc.records) {
    if (!r.waived && !r.verified) out += fmt::format("VERIFY FAILED {}: {}\n", r.tcase.id(), r.verify_detail);
  }
  const auto unlocked = std::find_if(doc.records.begin(), doc.records.end(),
                                     [](const StorageRecord& r) { return !r.waived && !r.buffer_locked; });
  if (unlocked != doc.records.end())
    out += fmt::format("host buffer not page-locked ({}); figures are for pageable memory\n",
                       unlocked->buffer_lock_refusal);
  if (doc.dir.fs_type == "tmpfs")
    out += "tmpfs: the files are themselves page cache, so these figures are memory copies, not a device\n";
  if (doc.interrupted) out += "interrupted: the cases above finished; the rest did not run\n";
  return out;
}

}  // namespace

std::string storage_text(const StorageDocument& doc) {
  const auto& d = doc.dir;
  std::string out = fmt::format("kvbench storage: {} ({}, {} free)\n", printable_path(d.path),
                                d.fs_type.empty() ? "unknown fs" : d.fs_type,
                                format_bytes_binary(static_cast<double>(d.free_bytes)));
  out += fmt::format(
      "Measured. GB/s = 10^9 B/s over the median of {} passes; a write pass includes its flush "
      "to the device; every chunk read back is checked against its pattern.\n",
      doc.repeats);
  out += "page cache, buffered: " + cache_bypass_text(CacheBypass::kFadviseDontneed) + "\n";
  out +=
      "page cache, direct: " +
      (d.direct_supported ? cache_bypass_text(CacheBypass::kDirectIo) : "not measured: " + d.direct_refusal) +
      "\n";
  out += io_uring_text(doc.io_uring_built) + "\n" + gpudirect_text() + "\n\n";
  auto t = table(doc);
  if (!t.empty() && t.back() != '\n') t += '\n';
  return out + t + notes(doc);
}

}  // namespace kvb

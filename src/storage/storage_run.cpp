#include "storage/storage_run.hpp"

#include "backend/data_pattern.hpp"
#include "core/host_info.hpp"
#include "storage/chunk_pattern.hpp"
#include "storage/host_buffer.hpp"
#include "storage/io_pass.hpp"

namespace kvb {

namespace {

// The reason a case cannot run here, or "".
std::string waive_reason(const StorageDirFacts& dir, const StorageCase& c) {
  if (c.mode == IoMode::kDirect && !dir.direct_supported) return dir.direct_refusal;
  if (c.engine == IoEngine::kIoUring && !io_uring_built())
    return "io_uring engine not built (liburing was not found when kvbench was built)";
  return "";
}

// One repetition: the seconds of the write and the read pass; "" or the first bad chunk.
std::string one_repeat(const StorageDirFacts& dir, const StorageCase& c, const StorageRunSettings& s,
                       HostBuffer& buffer, double& write_s, double& read_s) {
  fill_chunks(buffer.data(), c.bytes(), c.seed);
  ChunkFiles files(dir.path, c);
  write_s = run_io_pass(c, files, buffer, PassKind::kWrite);
  if (s.after_write) s.after_write(files);
  files.drop_cache();  // after the flush the pages are clean, so the advice can drop them
  fill_zero(buffer.data(), c.bytes());
  read_s = run_io_pass(c, files, buffer, PassKind::kRead);
  return verify_chunks(buffer.data(), c.chunk_bytes, c.chunks, c.seed);
}

}  // namespace

StorageRecord run_storage_case(const StorageDirFacts& dir, const StorageCase& c,
                               const StorageRunSettings& s) {
  StorageRecord r;
  r.tcase = c;
  r.dir = dir.path;
  r.fs_type = dir.fs_type;
  r.hostname = host_name();
  r.cache = c.mode == IoMode::kDirect ? CacheBypass::kDirectIo : CacheBypass::kFadviseDontneed;
  r.bytes_per_pass = static_cast<double>(c.bytes());
  r.waive_reason = waive_reason(dir, c);
  r.waived = !r.waive_reason.empty();
  if (r.waived) return r;
  HostBuffer buffer(c.bytes());
  r.buffer_locked = buffer.locked();
  r.buffer_lock_refusal = buffer.lock_refusal();
  std::vector<double> writes, reads;
  r.verified = true;
  for (int i = 0; i < s.repeats; ++i) {
    double w = 0, rd = 0;
    r.verify_detail = one_repeat(dir, c, s, buffer, w, rd);
    writes.push_back(w);
    reads.push_back(rd);
    if (!r.verify_detail.empty()) {
      r.verified = false;
      break;
    }
  }
  r.write = pass_figures(writes, r.bytes_per_pass);
  r.read = pass_figures(reads, r.bytes_per_pass);
  return r;
}

}  // namespace kvb

// The io_uring engine: each thread owns a ring and keeps queue-depth chunk requests in flight.
// Compiled only where CMake found liburing (pkg-config); the threads engine runs everywhere.
#include <fmt/format.h>

#include "core/errors.hpp"
#include "kvbench_config.hpp"
#include "storage/io_pass.hpp"

#if KVBENCH_HAVE_LIBURING
#include <liburing.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/path_text.hpp"
#endif

namespace kvb {

#if KVBENCH_HAVE_LIBURING

bool io_uring_built() { return true; }

namespace {

struct Slot {
  std::int64_t chunk = -1;
  int fd = -1;
  std::uint64_t done = 0;  // bytes transferred so far (a short transfer is resubmitted)
};

struct RingPass {
  const StorageCase& c;
  ChunkFiles& files;
  HostBuffer& buffer;
  PassKind kind;
  std::atomic<std::int64_t>& next;

  void submit(io_uring& ring, Slot& s) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    auto* p = buffer.data() + static_cast<std::uint64_t>(s.chunk) * c.chunk_bytes + s.done;
    const auto n = static_cast<unsigned>(c.chunk_bytes - s.done);
    const auto off = static_cast<std::uint64_t>(files.offset(s.chunk)) + s.done;
    if (kind == PassKind::kWrite) {
      io_uring_prep_write(sqe, s.fd, p, n, off);
    } else {
      io_uring_prep_read(sqe, s.fd, p, n, off);
    }
    io_uring_sqe_set_data(sqe, &s);
  }

  // Claims the next chunk into `s`; false when none is left.
  bool claim(io_uring& ring, Slot& s) {
    const auto i = next++;
    if (i >= c.chunks) return false;
    s = Slot{i, -1, 0};
    s.fd = files.open_chunk(i, kind == PassKind::kWrite);
    submit(ring, s);
    return true;
  }

  // One completion: resubmits a short transfer, retires a whole one. "" or the failure.
  std::string complete(io_uring& ring, io_uring_cqe* cqe, int& in_flight) {
    auto& s = *static_cast<Slot*>(io_uring_cqe_get_data(cqe));
    const int res = cqe->res;
    io_uring_cqe_seen(&ring, cqe);
    if (res < 0) return fmt::format("{}: {}", printable_path(files.chunk_path(s.chunk)), std::strerror(-res));
    if (res == 0) return fmt::format("{}: end of file", printable_path(files.chunk_path(s.chunk)));
    s.done += static_cast<std::uint64_t>(res);
    if (s.done < c.chunk_bytes) {
      submit(ring, s);
      return "";
    }
    files.close_chunk(s.fd);
    s = Slot{};
    if (!claim(ring, s)) --in_flight;
    return "";
  }

  std::string run_ring() {
    io_uring ring{};
    if (const int rc = io_uring_queue_init(static_cast<unsigned>(c.queue_depth), &ring, 0); rc < 0)
      return fmt::format("io_uring_queue_init: {}", std::strerror(-rc));
    std::vector<Slot> slots(static_cast<std::size_t>(c.queue_depth));
    int in_flight = 0;
    std::string err;
    try {
      for (auto& s : slots) in_flight += claim(ring, s) ? 1 : 0;
      while (in_flight > 0 && err.empty()) {
        io_uring_submit(&ring);
        io_uring_cqe* cqe = nullptr;
        if (const int rc = io_uring_wait_cqe(&ring, &cqe); rc < 0) {
          err = fmt::format("io_uring_wait_cqe: {}", std::strerror(-rc));
          break;
        }
        err = complete(ring, cqe, in_flight);
      }
    } catch (const DeviceError& e) {
      err = e.what();
    }
    io_uring_queue_exit(&ring);  // cancels what is still in flight after a failure
    for (const auto& s : slots) {
      if (s.fd >= 0) files.close_chunk(s.fd);  // a failure left these open
    }
    return err;
  }
};

}  // namespace

void io_uring_pass(const StorageCase& c, ChunkFiles& files, HostBuffer& buffer, PassKind kind) {
  std::atomic<std::int64_t> next{0};
  std::mutex m;
  std::string failure;
  std::vector<std::thread> pool;
  for (int t = 0; t < c.threads; ++t) {
    pool.emplace_back([&] {
      RingPass pass{c, files, buffer, kind, next};
      const auto err = pass.run_ring();
      if (err.empty()) return;
      const std::lock_guard<std::mutex> lock(m);
      if (failure.empty()) failure = err;
      next = c.chunks;
    });
  }
  for (auto& t : pool) t.join();
  if (!failure.empty())
    throw DeviceError(
        fmt::format("storage: io_uring {}: {}", kind == PassKind::kWrite ? "write" : "read", failure));
}

#else

bool io_uring_built() { return false; }

void io_uring_pass(const StorageCase&, ChunkFiles&, HostBuffer&, PassKind) {
  throw DeviceError("storage: this kvbench was built without liburing; the io_uring engine is not built");
}

#endif

}  // namespace kvb

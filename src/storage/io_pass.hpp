#pragma once
// One pass over every chunk of a case, writing the host buffer out or reading it back, by the
// case's engine: threads with pwrite/pread (queue depth 1 each), or io_uring (each thread a ring
// with queue-depth requests in flight) where kvbench was built with liburing.
#include "storage/chunk_files.hpp"
#include "storage/host_buffer.hpp"
#include "storage/storage_case.hpp"

namespace kvb {

enum class PassKind { kWrite, kRead };

// Seconds from the first submission to the last completion (and, for a write pass, the flush).
// DeviceError on an I/O error, naming the file.
double run_io_pass(const StorageCase& c, ChunkFiles& files, HostBuffer& buffer, PassKind kind);

// Whether this build has the io_uring engine (KVBENCH_HAVE_LIBURING).
bool io_uring_built();

// The io_uring pass itself (io_uring_pass.cpp); DeviceError where not built.
void io_uring_pass(const StorageCase& c, ChunkFiles& files, HostBuffer& buffer, PassKind kind);

}  // namespace kvb

#pragma once
// A `kvbench dma` sweep as data: which cases to plan from the user's settings, and running them
// on a backend. `kvbench dma` and `kvbench report`'s default assessment share it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dma/dma_record.hpp"
#include "dma/statistics.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {

struct DmaSweepSettings {
  std::string block = "4KiB..16MiB";
  std::string blocks;  // empty: 1000, fewer where a quarter of the pool holds fewer
  std::string method = "ce,ce-batch,kernel";
  std::string direction = "h2d,d2h,bidir";
  std::string layout = "contiguous";
  int layers = 32;
  std::string host_mem = "pinned";
  int numa_node = -1;
  std::string ctas = "0";  // kernel method: a comma list of CTA budgets; 0 = every SM
  std::string pool;        // empty: 2 GiB on a GPU, 256 MiB on the host backend
  std::uint64_t seed = 1;
  bool with_compute = false;
  StoppingRule rule;
};

// `kvbench dma --quick`: three block sizes, a looser precision and a short cap (about 10 s on a GPU).
void apply_quick(DmaSweepSettings& s);

// A block size whose block count per transfer was reduced to fit the pool: to a quarter of it (so
// the blocks stay scattered), or to all it holds. output/dma/dma_output words it.
struct BlocksReduced {
  std::int64_t block_bytes = 0, blocks = 0, pool_bytes = 0;
  bool quarter = false;
};

// Validates every setting (UsageError naming the flag) and lists the cases; `reduced` gains one
// entry per block size whose block count was reduced to fit the pool.
std::vector<TransferCase> plan_dma_cases(const DmaSweepSettings& s, bool gpu,
                                         std::vector<BlocksReduced>& reduced);

// Checks the stopping-rule settings (UsageError naming the flags).
void validate_stopping_rule(const StoppingRule& rule);

using DmaProgress = std::function<void(std::size_t done, std::size_t total, const std::string& case_id)>;

// Measures every case on `backend`; progress is called before each case.
std::vector<DmaRecord> run_dma_cases(TransferBackend& backend, const std::vector<TransferCase>& cases,
                                     const StoppingRule& rule, const DmaProgress& progress = {});

// Measures every case on all `backends` at once (--device all): a host thread per device, their
// timed runs started together and every recorded sample taken while all devices copy
// (StoppingRule::group). Records are case by case, each case's devices in the given order.
std::vector<DmaRecord> run_dma_cases_concurrently(const std::vector<TransferBackend*>& backends,
                                                  const std::vector<TransferCase>& cases,
                                                  const StoppingRule& rule, const DmaProgress& progress = {});

// The devices of --device: "all" (every device of the backend, `count`) or a comma list of
// indices, each below `count` (DeviceError naming the index otherwise: a device this machine lacks).
std::vector<int> parse_device_list(const std::string& text, int count);

// Refuses (UsageError naming --pool) a sweep whose pools would not fit the host's MemAvailable
// (less 10% for everything else), before anything is allocated: on a GPU each device pins a
// source and a destination host pool; the host backend keeps all four pools in host memory.
void check_host_memory(const std::vector<TransferCase>& cases, std::size_t devices, bool host_backend,
                       std::uint64_t mem_available);

// Throws CheckFailed naming the first record whose copied data did not verify.
void require_verified(const std::vector<DmaRecord>& records);

}  // namespace kvb

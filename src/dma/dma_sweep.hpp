#pragma once
// A `kvbench dma` sweep as data: which cases to plan from the user's settings, and running them
// on a backend. `kvbench dma` and `kvbench report`'s default assessment share it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/transfer_backend.hpp"
#include "dma/dma_record.hpp"
#include "dma/statistics.hpp"

namespace kvb {

struct DmaSweepSettings {
  std::string block = "4KiB..16MiB";
  std::string blocks;  // empty: 1000, reduced to fit the pool
  std::string method = "ce,ce-batch,kernel";
  std::string direction = "h2d,d2h,bidir";
  std::string layout = "contiguous";
  int layers = 32;
  std::string host_mem = "pinned";
  int numa_node = -1;
  int ctas = 0;
  std::string pool;  // empty: 8 GiB on a GPU, 256 MiB on the host backend
  std::uint64_t seed = 1;
  bool with_compute = false;
  StoppingRule rule;
};

// Validates every setting (UsageError naming the flag) and lists the cases; `notes` gains one line
// per block size whose block count was reduced to fit the pool.
std::vector<TransferCase> plan_dma_cases(const DmaSweepSettings& s, bool gpu, std::vector<std::string>& notes);

// Checks the stopping-rule settings (UsageError naming the flags).
void validate_stopping_rule(const StoppingRule& rule);

using DmaProgress = std::function<void(std::size_t done, std::size_t total, const std::string& case_id)>;

// Measures every case on `backend`; progress is called before each case.
std::vector<DmaRecord> run_dma_cases(TransferBackend& backend, const std::vector<TransferCase>& cases,
                                     const StoppingRule& rule, const DmaProgress& progress = {});

// Throws CheckFailed naming the first record whose copied data did not verify.
void require_verified(const std::vector<DmaRecord>& records);

}  // namespace kvb

#pragma once
// doctor's measured host link: vLLM's 2 MiB block copied each way and judged against a floor of
// 85% of the figure kvbench measured on that GPU model (its hardware file), and the same copy from
// the GPU's own NUMA node and from another one.
#include <optional>
#include <vector>

#include "dma/dma_record.hpp"
#include "dma/transfer_backend.hpp"
#include "doctor/node_checks.hpp"
#include "doctor/node_facts.hpp"

namespace kvb {

// A link below this share of the hardware file's figure fails (run-to-run spread on one node is
// within a few percent; 15% below is a misconfigured slot, a throttled link or a remote NUMA node).
inline constexpr double kLinkFloorShare = 0.85;

// h2d and d2h at 2 MiB with copy-engine DMA, one cudaMemcpyAsync/hipMemcpyAsync per block.
std::vector<DmaRecord> measure_link_2mib(TransferBackend& backend);

// Where the node has several NUMA nodes and the GPU's is known: h2d at 2 MiB from the GPU's node
// and from the next one; none when the pages did not land where asked.
std::optional<NumaMeasurement> measure_numa(TransferBackend& backend, const NodeFacts& facts);

// One check per record: "link measured h2d GPU 0", against the floor where the GPU model is known.
std::vector<CheckResult> link_measured_checks(const std::vector<DmaRecord>& records);

}  // namespace kvb

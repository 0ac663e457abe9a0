#include "core/numa_binding.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "kvbench_config.hpp"

#if KVBENCH_HAVE_LIBNUMA
#include <numa.h>
#include <numaif.h>
#endif

namespace kvb {

namespace {
constexpr unsigned long kMaskBits = 16 * 8 * sizeof(unsigned long);
}  // namespace

#if KVBENCH_HAVE_LIBNUMA

bool numa_supported() { return numa_available() >= 0; }

void validate_numa_node(int node, const std::string& what) {
  if (!numa_supported()) {
    throw UsageError(
        fmt::format("{} {}: NUMA memory policies are unavailable here (kernel or container); "
                    "expected the option left unset",
                    what, node));
  }
  const int max = numa_max_node();
  if (node < 0 || node > max || numa_node_size64(node, nullptr) <= 0) {
    throw UsageError(
        fmt::format("{} {}: no such NUMA node with memory; expected a node from 0 to {}", what, node, max));
  }
}

ScopedNumaBind::ScopedNumaBind(int node, bool required) {
  if (node < 0 || static_cast<unsigned long>(node) >= kMaskBits || !numa_supported()) return;
  constexpr unsigned long kWordBits = 8 * sizeof(unsigned long);
  unsigned long mask[16] = {};
  mask[static_cast<unsigned long>(node) / kWordBits] |= 1UL << (static_cast<unsigned long>(node) % kWordBits);
  if (get_mempolicy(&old_mode_, old_mask_, kMaskBits, nullptr, 0) != 0 ||
      set_mempolicy(MPOL_BIND, mask, kMaskBits) != 0) {
    if (required)
      throw DeviceError(fmt::format("NUMA: cannot bind host memory to node {} (set_mempolicy failed)", node));
    return;
  }
  active_ = true;
}

ScopedNumaBind::~ScopedNumaBind() {
  if (active_) (void)set_mempolicy(old_mode_, old_mode_ == MPOL_DEFAULT ? nullptr : old_mask_, kMaskBits);
}

int numa_node_of(const void* p) {
  if (p == nullptr || !numa_supported()) return -1;
  int node = -1;
  if (get_mempolicy(&node, nullptr, 0, const_cast<void*>(p), MPOL_F_NODE | MPOL_F_ADDR) != 0) return -1;
  return node;
}

#else  // built without libnuma

bool numa_supported() { return false; }

void validate_numa_node(int node, const std::string& what) {
  throw UsageError(
      fmt::format("{} {}: this kvbench was built without libnuma (install libnuma-dev and rebuild); "
                  "expected the option left unset",
                  what, node));
}

ScopedNumaBind::ScopedNumaBind(int node, bool required) {
  (void)node;
  (void)required;
}
ScopedNumaBind::~ScopedNumaBind() = default;

int numa_node_of(const void* p) {
  (void)p;
  return -1;
}

#endif

}  // namespace kvb

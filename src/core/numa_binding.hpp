#pragma once
// Host-memory NUMA placement for the dma pools, through libnuma where the build found it.
// A pinned pool on the wrong socket crosses the inter-socket link on every copy, which can cost
// a third of the bandwidth; so the node is applied while a pool is allocated and first touched,
// and the node its pages really landed on is read back and recorded.
#include <string>

namespace kvb {

// Whether this build has libnuma and the kernel supports NUMA policies.
bool numa_supported();

// Throws UsageError naming `what` when `node` cannot be bound: NUMA unsupported, or no such node.
void validate_numa_node(int node, const std::string& what);

// While alive, pages this thread allocates come from `node` (MPOL_BIND); the previous policy is
// restored on destruction. node < 0 changes nothing. When binding fails: DeviceError if
// `required` (the user asked for the node), else no binding (a default taken from sysfs).
class ScopedNumaBind {
 public:
  ScopedNumaBind(int node, bool required);
  ~ScopedNumaBind();
  ScopedNumaBind(const ScopedNumaBind&) = delete;
  ScopedNumaBind& operator=(const ScopedNumaBind&) = delete;

 private:
  bool active_ = false;
  int old_mode_ = 0;
  unsigned long old_mask_[16] = {};
};

// The node holding the page at `p` (which must have been touched), or -1 when unknown.
int numa_node_of(const void* p);

}  // namespace kvb

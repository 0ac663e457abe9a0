#pragma once
// What `kvbench doctor` reads about a node, all through a root path ("/" on a node; a fixture
// tree under tests/data/nodes/ in tests): /proc and /sys as the kernel writes them.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvb {

struct ShmFacts {
  bool mounted = false;
  bool size_known = false;  // false: no size= option and MemTotal unknown (the check skips)
  double size_bytes = 0;    // the tmpfs size= option, else half of MemTotal (tmpfs' default)
  bool size_from_default = false;
  double used_bytes = 0;                                    // the files in it (allocated blocks)
  std::vector<std::pair<std::string, double>> large_files;  // name, bytes: 1 GiB or more
};

// The memory cgroup this process runs in (a Kubernetes pod's limit, a Docker --memory, a Slurm
// job's): the tier and the server are charged to it, and shared memory cannot be reclaimed there.
struct CgroupMemoryFacts {
  int version = 0;                    // 1 or 2; 0 = no memory cgroup found
  std::string path;                   // as proc/self/cgroup names it
  std::optional<double> limit_bytes;  // the tightest limit from this cgroup up; nullopt = none
  std::string limit_file;             // where that limit was read, under the root
  double usage_bytes = 0;  // memory.current (v2) / memory.usage_in_bytes (v1) of the cgroup with the limit
  std::string problem;     // why the limit is unknown
  double headroom_bytes() const { return limit_bytes ? std::max(0.0, *limit_bytes - usage_bytes) : 0; }
};

struct GpuPciFacts {
  std::string bus_id;  // "0000:1b:00.0"
  std::string vendor;  // "nvidia", "amd"
  int numa_node = -1;
  std::string current_speed, max_speed;  // "32.0 GT/s PCIe"
  int current_width = 0, max_width = 0;
};

struct NodeFacts {
  std::string root;
  // 0 = unknown; meminfo_problem then says why ("MemAvailable missing from /proc/meminfo").
  double mem_total_bytes = 0, mem_available_bytes = 0;
  std::string meminfo_problem;
  std::optional<double> memlock_soft_bytes;  // nullopt = unlimited (or unreadable: memlock_known)
  bool memlock_known = false;
  std::string memlock_problem;  // why it is unknown, when /proc/self/limits was read
  ShmFacts shm;
  CgroupMemoryFacts cgroup;
  std::string thp_mode;  // always, madvise, never; "" unknown
  std::int64_t hugepages_total = 0;
  double hugepage_bytes = 0;
  bool iommu_present = false;
  std::string iommu_mode;   // from the kernel command line: "passthrough", "translated", ""
  bool hypervisor = false;  // the CPU flag a VM shows
  bool tdx_guest = false;   // an Intel TDX confidential-computing guest (CPU flag tdx_guest)
  std::string container;    // "docker", "kubernetes", "" (none seen)
  int numa_nodes = 0;
  std::vector<GpuPciFacts> gpus;
  std::string nvidia_driver;  // "580.159.04"; "" absent
  std::string amdgpu_driver;
  // Values that are present but not figures ("proc/meminfo: MemAvailable '1e400' is not a figure"):
  // on this node the check they feed says skip; in a recorded --root tree they are a broken input.
  std::vector<std::string> malformed;
};

// Reads everything it can; what is missing or not a plausible figure (junk, nan, inf, negative,
// past 2^60 bytes) stays at its default, so a check says skip rather than pass or fail on it.
// UsageError when `root` is not a node's tree (no proc/ directory under it).
NodeFacts read_node_facts(const std::string& root);

// One reading rule for numbers the kernel writes: a plain non-negative decimal below 2^60
// (a byte count no machine has); nullopt otherwise.
std::optional<double> kernel_number(const std::string& text);

}  // namespace kvb

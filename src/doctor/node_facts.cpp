#include "doctor/node_facts.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/node_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"

namespace kvb {
namespace {

namespace fs = std::filesystem;

// Every node file goes through core's one reader (regular files only, capped): a file that is
// there but is a FIFO, a link to /dev/zero or past the cap is named in f.malformed, never read.
bool read_file(NodeFacts& f, const std::string& path, std::string& out) {
  const auto file = read_node_file(path);
  if (!file.problem.empty()) {
    const auto rel = path.rfind(f.root, 0) == 0 ? path.substr(f.root.size()) : path;
    f.malformed.push_back(fmt::format("{}: {}", printable_path(rel), file.problem));
  }
  out = file.text;
  return file.ok();
}

std::string read_all(NodeFacts& f, const std::string& path) {
  std::string text;
  (void)read_file(f, path, text);
  return text;
}

std::string first_line(NodeFacts& f, const std::string& path) {
  auto line = read_all(f, path);
  line = line.substr(0, line.find('\n'));
  const auto end = line.find_last_not_of(" \t\r");
  return end == std::string::npos ? std::string() : line.substr(0, end + 1);
}

// "MemTotal:  263852844 kB" -> bytes; nullopt when the key is missing or not a figure (noted in
// f.malformed: a line is there but its value is junk).
std::optional<double> meminfo_bytes(NodeFacts& f, const std::string& meminfo, const std::string& key) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::string value, unit;
    fields >> value >> unit;
    const auto v = kernel_number(value);
    if (!v) {
      f.malformed.push_back(fmt::format("proc/meminfo: {} '{}' is not a figure", key, value));
      return std::nullopt;
    }
    return unit == "kB" ? *v * 1024 : *v;
  }
  return std::nullopt;
}

void read_meminfo(NodeFacts& f) {
  std::string meminfo;
  if (!read_file(f, f.root + "/proc/meminfo", meminfo)) {
    f.meminfo_problem = "/proc/meminfo unreadable";
    return;
  }
  const auto total = meminfo_bytes(f, meminfo, "MemTotal");
  const auto available = meminfo_bytes(f, meminfo, "MemAvailable");
  if (total && *total > 0) f.mem_total_bytes = *total;
  if (!total || !(*total > 0)) {
    f.meminfo_problem = "MemTotal missing from /proc/meminfo or not a figure";
  } else if (!available) {
    f.meminfo_problem = "MemAvailable missing from /proc/meminfo or not a figure";
  } else if (*available > *total) {
    f.meminfo_problem = "/proc/meminfo's MemAvailable exceeds MemTotal";
    f.malformed.push_back(f.meminfo_problem);
  } else {
    f.mem_available_bytes = *available;
  }
  f.hugepages_total = static_cast<std::int64_t>(meminfo_bytes(f, meminfo, "HugePages_Total").value_or(0));
  f.hugepage_bytes = meminfo_bytes(f, meminfo, "Hugepagesize").value_or(0);
}

// "Max locked memory   8388608   8388608   bytes" -> the soft limit; "unlimited" -> nullopt.
void read_memlock(NodeFacts& f) {
  std::istringstream in(read_all(f, f.root + "/proc/self/limits"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Max locked memory", 0) != 0) continue;
    std::istringstream fields(line.substr(17));
    std::string soft;
    fields >> soft;
    if (soft == "unlimited") {
      f.memlock_known = true;
      continue;
    }
    f.memlock_soft_bytes = kernel_number(soft);
    f.memlock_known = f.memlock_soft_bytes.has_value();
    if (!f.memlock_known) {
      f.memlock_problem = fmt::format("Max locked memory '{}' is not a figure", soft);
      f.malformed.push_back("proc/self/limits: " + f.memlock_problem);
    }
  }
}

void read_shm(NodeFacts& f) {
  std::istringstream in(read_all(f, f.root + "/proc/mounts"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string dev, mount, type, options;
    fields >> dev >> mount >> type >> options;
    if (mount != "/dev/shm") continue;
    f.shm.mounted = true;
    f.shm.size_from_default = true;
    f.shm.size_bytes = f.mem_total_bytes / 2;
    f.shm.size_known = f.mem_total_bytes > 0;
    for (const auto& o : split(options, ',')) {
      if (o.rfind("size=", 0) != 0) continue;
      const auto v = o.substr(5);
      double scale = 1;
      if (!v.empty() && (v.back() == 'k' || v.back() == 'K')) scale = 1024;
      if (!v.empty() && (v.back() == 'm' || v.back() == 'M')) scale = 1024.0 * 1024;
      if (!v.empty() && (v.back() == 'g' || v.back() == 'G')) scale = 1024.0 * 1024 * 1024;
      // size=50% is a share of RAM (tmpfs(5)).
      const bool percent = !v.empty() && v.back() == '%';
      if (percent) scale = f.mem_total_bytes / 100;
      const auto number = kernel_number(scale == 1 && !percent ? v : v.substr(0, v.size() - 1));
      f.shm.size_known = number.has_value() && scale > 0;
      if (!number) f.malformed.push_back(fmt::format("proc/mounts: /dev/shm size={} is not a size", v));
      if (f.shm.size_known) {
        f.shm.size_bytes = *number * scale;
        f.shm.size_from_default = false;
      }
    }
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(f.root + "/dev/shm", ec)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // A fixture stands in for a large file with a small one holding its size ("size: BYTES").
    double bytes = static_cast<double>(st.st_blocks) * 512;
    const auto text = st.st_size < 64 ? read_all(f, e.path()) : std::string();
    if (text.rfind("size: ", 0) == 0) {
      auto size = text.substr(6);
      while (!size.empty() && std::isspace(static_cast<unsigned char>(size.back()))) size.pop_back();
      const auto recorded = kernel_number(size);
      if (!recorded)
        f.malformed.push_back(
            fmt::format("dev/shm/{}: 'size: {}' is not a size", e.path().filename().string(), size));
      bytes = recorded.value_or(bytes);
    }
    f.shm.used_bytes += bytes;
    if (bytes >= 1024.0 * 1024 * 1024) f.shm.large_files.emplace_back(e.path().filename().string(), bytes);
  }
}

// A cgroup limit file: "max" (v2) or a count at or past 2^60 (v1's PAGE_COUNTER_MAX) is no limit.
struct LimitReading {
  bool present = false;
  std::optional<double> bytes;
  bool malformed = false;
};

LimitReading read_limit(NodeFacts& f, const std::string& path) {
  LimitReading r;
  std::string text;
  if (!read_file(f, path, text)) return r;
  r.present = true;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text == "max") return r;
  if (const auto v = kernel_number(text)) {
    r.bytes = *v;
    return r;
  }
  const bool huge =
      !text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() >= 18;
  r.malformed = !huge;
  return r;
}

// The memory controller's line of proc/self/cgroup: "0::/path" (v2) or "N:...memory...:/path" (v1).
void find_memory_cgroup(NodeFacts& f, std::string& dir, std::string& limit_name, std::string& usage_name) {
  std::istringstream in(read_all(f, f.root + "/proc/self/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const auto controllers = split(line.substr(a + 1, b - a - 1), ',');
    const auto path = line.substr(b + 1);
    if (line.substr(0, a) == "0" && line.substr(a + 1, b - a - 1).empty() && f.cgroup.version == 0) {
      f.cgroup = {2, path, {}, {}, 0, {}};
      dir = "/sys/fs/cgroup";
      limit_name = "memory.max";
      usage_name = "memory.current";
    }
    if (std::find(controllers.begin(), controllers.end(), "memory") != controllers.end()) {
      f.cgroup = {1, path, {}, {}, 0, {}};
      dir = "/sys/fs/cgroup/memory";
      limit_name = "memory.limit_in_bytes";
      usage_name = "memory.usage_in_bytes";
      return;
    }
  }
}

// The usage of one cgroup level; garbage (not a byte count) is named in f.malformed.
std::optional<double> read_usage(NodeFacts& f, const std::string& base, const std::string& shown) {
  const auto text = first_line(f, base);
  if (text.empty()) return std::nullopt;
  const auto usage = kernel_number(text);
  if (!usage) f.malformed.push_back(fmt::format("{}: '{}' is not a byte count", shown, text));
  return usage;
}

// The tightest limit from the process's cgroup up to the hierarchy's root, and the usage of the
// cgroup that carries it: an ancestor's limit is charged with all its children, not with this
// leaf alone. Inside a container's cgroup namespace the path is "/" and the container's own
// limit sits at the root.
void read_cgroup(NodeFacts& f) {
  std::string dir, limit_name, usage_name;
  find_memory_cgroup(f, dir, limit_name, usage_name);
  if (f.cgroup.version == 0) {
    f.cgroup.problem = "no memory cgroup in proc/self/cgroup";
    return;
  }
  std::string path = f.cgroup.path;
  if (path.find("..") != std::string::npos) path = "/";  // never walk out of the hierarchy
  std::error_code ec;
  if (!fs::is_directory(f.root + dir + path, ec)) path = "/";  // a host path not visible in this namespace
  bool leaf = true;
  while (true) {
    const auto shown = dir + (path == "/" ? std::string() : path);
    const auto base = f.root + shown;
    const auto limit = read_limit(f, base + "/" + limit_name);
    if (limit.malformed) f.malformed.push_back(fmt::format("{}/{}: not a limit", shown, limit_name));
    const bool tighter = limit.bytes && (!f.cgroup.limit_bytes || *limit.bytes < *f.cgroup.limit_bytes);
    if (tighter || leaf) {
      const auto usage = read_usage(f, base + "/" + usage_name, shown + "/" + usage_name);
      if (tighter || !f.cgroup.limit_bytes) f.cgroup.usage_bytes = usage.value_or(f.cgroup.usage_bytes);
    }
    if (tighter) {
      f.cgroup.limit_bytes = limit.bytes;
      f.cgroup.limit_file = shown + "/" + limit_name;
    }
    leaf = false;
    if (path == "/" || path.empty()) break;
    const auto slash = path.find_last_of('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  // Walked with the raw bytes; shown (text, JSON) in core's one printable spelling.
  f.cgroup.path = printable_path(f.cgroup.path);
  f.cgroup.limit_file = printable_path(f.cgroup.limit_file);
}

void read_gpus(NodeFacts& f) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(f.root + "/sys/bus/pci/devices", ec)) {
    const auto dir = e.path().string();
    const auto cls = first_line(f, dir + "/class");
    // Display controllers: VGA (0x0300xx) and 3D (0x0302xx), as GPUs for compute enumerate.
    if (cls.rfind("0x0300", 0) != 0 && cls.rfind("0x0302", 0) != 0) continue;
    const auto vendor = first_line(f, dir + "/vendor");
    GpuPciFacts g;
    if (vendor == "0x10de")
      g.vendor = "nvidia";
    else if (vendor == "0x1002")
      g.vendor = "amd";
    else
      continue;
    g.bus_id = e.path().filename().string();
    try {
      g.numa_node = std::stoi(first_line(f, dir + "/numa_node"));
    } catch (...) {
    }
    g.current_speed = first_line(f, dir + "/current_link_speed");
    g.max_speed = first_line(f, dir + "/max_link_speed");
    try {
      g.current_width = std::stoi(first_line(f, dir + "/current_link_width"));
      g.max_width = std::stoi(first_line(f, dir + "/max_link_width"));
    } catch (...) {
    }
    f.gpus.push_back(g);
  }
}

}  // namespace

NodeFacts read_node_facts(const std::string& root) {
  NodeFacts f;
  f.root = root == "/" ? "" : root;
  std::error_code ec;
  if (!fs::is_directory(f.root + "/proc", ec)) {
    throw UsageError(
        fmt::format("--root '{}': no proc/ directory there; expected a node's root (/) or a recorded "
                    "tree holding proc/ and sys/",
                    root));
  }
  read_meminfo(f);
  read_memlock(f);
  read_shm(f);
  read_cgroup(f);
  const auto thp = first_line(f, f.root + "/sys/kernel/mm/transparent_hugepage/enabled");
  const auto open = thp.find('['), close = thp.find(']');
  if (open != std::string::npos && close > open) f.thp_mode = thp.substr(open + 1, close - open - 1);
  f.iommu_present =
      fs::exists(f.root + "/sys/class/iommu", ec) && !fs::is_empty(f.root + "/sys/class/iommu", ec);
  const auto cmdline = read_all(f, f.root + "/proc/cmdline");
  if (cmdline.find("iommu=pt") != std::string::npos ||
      cmdline.find("iommu.passthrough=1") != std::string::npos) {
    f.iommu_mode = "passthrough";
  } else if (f.iommu_present) {
    f.iommu_mode = "translated";
  }
  const auto cpuinfo = read_all(f, f.root + "/proc/cpuinfo");
  f.hypervisor = cpuinfo.find(" hypervisor") != std::string::npos;
  f.tdx_guest = cpuinfo.find(" tdx_guest") != std::string::npos;
  const auto cgroup = read_all(f, f.root + "/proc/1/cgroup");
  if (cgroup.find("kubepods") != std::string::npos)
    f.container = "kubernetes";
  else if (cgroup.find("docker") != std::string::npos || fs::exists(f.root + "/.dockerenv", ec))
    f.container = "docker";
  for (const auto& e : fs::directory_iterator(f.root + "/sys/devices/system/node", ec)) {
    const auto name = e.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && std::isdigit(static_cast<unsigned char>(name[4])))
      ++f.numa_nodes;
  }
  read_gpus(f);
  f.nvidia_driver = gpu_kernel_driver_version("cuda", root);
  f.amdgpu_driver = gpu_kernel_driver_version("hip", root);
  return f;
}

std::optional<double> kernel_number(const std::string& text) {
  double v = 0;
  const auto* end = text.data() + text.size();
  const auto res = std::from_chars(text.data(), end, v, std::chars_format::fixed);
  if (text.empty() || res.ec != std::errc() || res.ptr != end || !std::isfinite(v) || v < 0 || v >= 0x1p60) {
    return std::nullopt;
  }
  return v;
}

}  // namespace kvb

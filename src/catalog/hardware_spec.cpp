#include "catalog/hardware_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <utility>

#include "catalog/embedded_files.hpp"
#include "catalog/hardware_figures.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/link_ceiling.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {
namespace {

const std::vector<std::string> kHardwareKeys = {"name",
                                                "aliases",
                                                "description",
                                                "source",
                                                "vendor",
                                                "gpu_arch",
                                                "hbm_gb",
                                                "usable_gib",
                                                "hbm_bandwidth_gbps",
                                                "host_link",
                                                "pcie_generation",
                                                "pcie_width",
                                                "c2c_gbps_per_direction",
                                                "link_practical_gbps",
                                                "bf16_tflops",
                                                "fp8_tflops",
                                                "fp4_tflops",
                                                "gpu_link_kind",
                                                "gpus_per_node",
                                                "host_dram_gb",
                                                "mla_block_size",
                                                "notes",
                                                "gpu_link_gbps",
                                                "gpu_link_latency_us",
                                                "link_kernel_compute_slowdown",
                                                "link_measured_h2d_gbps",
                                                "link_measured_d2h_gbps",
                                                "link_measured_h2d_per_copy_us",
                                                "link_measured_d2h_per_copy_us",
                                                "link_measured_source",
                                                "time_model_compute_efficiency",
                                                "time_model_memory_efficiency",
                                                "time_model_step_overhead_us",
                                                "time_model_source",
                                                "time_model_attention_efficiency",
                                                "time_model_request_overhead_us",
                                                "time_model_load_efficiency",
                                                "time_model_gemm_half_tokens",
                                                "pinning_register_s_per_gib",
                                                "pinning_host_alloc_s_per_gib",
                                                "pinning_source"};

// A scalar key's integer, range-checked as 64 bits before it is narrowed to an int.
int whole_in(const YamlObject& y, const char* key, int lo, int hi) {
  return static_cast<int>(y.integer_in(key, lo, hi, lo));
}

}  // namespace

double HardwareSpec::link_ceiling_gbps() const {
  return link == HostLinkKind::kPcie ? pcie_ceiling_gbps(pcie_generation, pcie_width)
                                     : c2c_gbps_per_direction;
}

std::string HardwareSpec::link_description() const {
  if (link == HostLinkKind::kPcie) return describe_pcie(pcie_generation, pcie_width);
  return fmt::format("NVLink-C2C, {:.0f} GB/s per direction", c2c_gbps_per_direction);
}

namespace {

void read_vendor_and_link(const YamlObject& y, HardwareSpec& h) {
  const auto vendor = y.str("vendor");
  if (vendor == "nvidia")
    h.vendor = GpuVendor::kNvidia;
  else if (vendor == "amd")
    h.vendor = GpuVendor::kAmd;
  else
    throw UsageError(fmt::format("{}: key 'vendor' is '{}'; expected nvidia or amd", y.origin(), vendor));
  const auto link = y.str("host_link");
  if (link == "pcie") {
    h.link = HostLinkKind::kPcie;
    // Required, and range-checked before narrowing: 4294967300 is refused, never Gen 4.
    (void)y.integer("pcie_generation");
    (void)y.integer("pcie_width");
    h.pcie_generation = whole_in(y, "pcie_generation", 1, 6);
    h.pcie_width = whole_in(y, "pcie_width", 1, 16);
    if ((h.pcie_width & (h.pcie_width - 1)) != 0)  // 1, 2, 4, 8 or 16
      throw UsageError(fmt::format("{}: key 'pcie_width' is {}; expected 1, 2, 4, 8 or 16 lanes", y.origin(),
                                   h.pcie_width));
  } else if (link == "nvlink-c2c") {
    h.link = HostLinkKind::kNvlinkC2C;
    h.c2c_gbps_per_direction = hardware_figure(y, "c2c_gbps_per_direction");
  } else {
    throw UsageError(
        fmt::format("{}: key 'host_link' is '{}'; expected pcie or nvlink-c2c", y.origin(), link));
  }
}

const std::vector<std::pair<std::string, GpuArch>> kArchNames = {{"ampere", GpuArch::kAmpere},
                                                                 {"ada", GpuArch::kAda},
                                                                 {"hopper", GpuArch::kHopper},
                                                                 {"blackwell", GpuArch::kBlackwell},
                                                                 {"blackwell-rtx", GpuArch::kBlackwellRtx},
                                                                 {"cdna3", GpuArch::kCdna3},
                                                                 {"cdna4", GpuArch::kCdna4}};

void read_arch(const YamlObject& y, HardwareSpec& h) {
  if (!y.has("gpu_arch")) return;
  const auto text = y.str("gpu_arch");
  for (const auto& [name, arch] : kArchNames) {
    if (name == text) {
      h.arch = arch;
      return;
    }
  }
  throw UsageError(
      fmt::format("{}: key 'gpu_arch' is '{}'; expected ampere, ada, hopper, blackwell, "
                  "blackwell-rtx, cdna3 or cdna4",
                  y.origin(), text));
}

// The fabric tensor parallelism uses: its kind (default by vendor: NVLink, Infinity Fabric), its
// per-direction bandwidth and all-reduce latency, both or neither.
void read_gpu_link(const YamlObject& y, HardwareSpec& h) {
  h.gpu_link_kind = h.vendor == GpuVendor::kAmd ? GpuLinkKind::kInfinityFabric : GpuLinkKind::kNvlink;
  if (y.has("gpu_link_kind")) {
    const auto kind = y.str("gpu_link_kind");
    if (kind == "nvlink")
      h.gpu_link_kind = GpuLinkKind::kNvlink;
    else if (kind == "infinity-fabric")
      h.gpu_link_kind = GpuLinkKind::kInfinityFabric;
    else if (kind == "pcie")
      h.gpu_link_kind = GpuLinkKind::kPcie;
    else
      throw UsageError(fmt::format(
          "{}: key 'gpu_link_kind' is '{}'; expected nvlink, infinity-fabric or pcie", y.origin(), kind));
  }
  if (y.has("gpu_link_gbps") || y.has("gpu_link_latency_us")) {
    h.gpu_link_gbps = hardware_figure(y, "gpu_link_gbps");
    h.gpu_link_latency_us = hardware_figure(y, "gpu_link_latency_us");
  }
}

// A measured figure without its source would be ignored without a word (the defaults used):
// every `<prefix>*` key is refused naming it when `<prefix>source` is absent.
void refuse_without_source(const YamlObject& y, const std::string& prefix, const char* why) {
  for (const auto& kv : y.node()) {
    const auto key = kv.first.as<std::string>();
    if (key.starts_with(prefix)) {
      throw UsageError(fmt::format("{}: key '{}' needs {}source ({}); expected both or neither", y.origin(),
                                   key, prefix, why));
    }
  }
}

// All five together: a measured link says where it was measured.
void read_measured_link(const YamlObject& y, HardwareSpec& h) {
  if (!y.has("link_measured_source")) {
    // The kernel method's slowdown is read with the measured link only (perf/link_curve).
    if (y.has("link_kernel_compute_slowdown"))
      throw UsageError(
          fmt::format("{}: key 'link_kernel_compute_slowdown' needs link_measured_source (where "
                      "it was measured); expected both or neither",
                      y.origin()));
    return refuse_without_source(y, "link_measured_", "where they were measured");
  }
  auto& m = h.measured_link;
  m.source = y.str("link_measured_source");
  m.h2d_gbps = hardware_figure(y, "link_measured_h2d_gbps");
  m.d2h_gbps = hardware_figure(y, "link_measured_d2h_gbps");
  m.h2d_per_copy_us = hardware_figure(y, "link_measured_h2d_per_copy_us");
  m.d2h_per_copy_us = hardware_figure(y, "link_measured_d2h_per_copy_us");
  if (std::max(m.h2d_gbps, m.d2h_gbps) > h.link_ceiling_gbps()) {
    throw UsageError(fmt::format("{}: a measured link figure exceeds the link ceiling {:.1f} GB/s",
                                 y.origin(), h.link_ceiling_gbps()));
  }
}

// The required four together: fitted figures say which measurements they were fitted to.
void read_measured_time_model(const YamlObject& y, HardwareSpec& h) {
  if (!y.has("time_model_source")) return refuse_without_source(y, "time_model_", "what they were fitted to");
  auto& t = h.measured_time_model;
  t.source = y.str("time_model_source");
  t.compute_efficiency = hardware_figure(y, "time_model_compute_efficiency");
  t.memory_efficiency = hardware_figure(y, "time_model_memory_efficiency");
  t.step_overhead_us = hardware_figure(y, "time_model_step_overhead_us");
  if (y.has("time_model_attention_efficiency"))
    t.attention_efficiency = hardware_figure(y, "time_model_attention_efficiency");
  if (y.has("time_model_request_overhead_us"))
    t.request_overhead_us = hardware_figure(y, "time_model_request_overhead_us");
  if (y.has("time_model_load_efficiency"))
    t.load_efficiency = hardware_figure(y, "time_model_load_efficiency");
  if (y.has("time_model_gemm_half_tokens"))
    t.gemm_half_tokens = hardware_figure(y, "time_model_gemm_half_tokens");
}

// Both figures and their source together: a pinning time says where it was measured.
void read_measured_pinning(const YamlObject& y, HardwareSpec& h) {
  const bool any =
      y.has("pinning_source") || y.has("pinning_register_s_per_gib") || y.has("pinning_host_alloc_s_per_gib");
  if (!any) return;
  auto& p = h.measured_pinning;
  p.source = y.str("pinning_source");
  p.register_s_per_gib = hardware_figure(y, "pinning_register_s_per_gib");
  p.host_alloc_s_per_gib = hardware_figure(y, "pinning_host_alloc_s_per_gib");
}

}  // namespace

HardwareSpec hardware_from_yaml(const std::string& text, const std::string& origin) {
  const auto y = YamlObject::parse(text, origin);
  y.reject_unknown_keys(kHardwareKeys);
  HardwareSpec h;
  h.name = y.str("name");
  h.aliases = y.str_list_or("aliases");
  h.description = y.str("description");
  h.source = y.str("source");
  read_vendor_and_link(y, h);
  read_arch(y, h);
  h.hbm_gb = hardware_figure(y, "hbm_gb");
  h.usable_gib = hardware_figure(y, "usable_gib");
  h.hbm_bandwidth_gbps = hardware_figure(y, "hbm_bandwidth_gbps");
  h.link_practical_gbps = hardware_figure(y, "link_practical_gbps");
  h.bf16_tflops = hardware_figure(y, "bf16_tflops");
  h.fp8_tflops = optional_peak(y, "fp8_tflops");  // absent or 0: no FP8 tensor cores
  h.fp4_tflops = optional_peak(y, "fp4_tflops");
  if (h.usable_gib > h.hbm_gb) {
    throw UsageError(
        fmt::format("{}: key 'usable_gib' is {}; expected at most hbm_gb ({}): what the driver "
                    "reports usable cannot exceed the card's memory",
                    origin, h.usable_gib, h.hbm_gb));
  }
  // vLLM's largest tensor-parallel group is a node; no node holds more than 1,024 GPUs.
  // Read as 64 bits and range-checked (core's integer_in) before it is narrowed to an int; required.
  (void)y.integer("gpus_per_node");
  h.gpus_per_node = static_cast<int>(y.integer_in("gpus_per_node", 1, 1024, 0));
  h.host_dram_gb = hardware_figure(y, "host_dram_gb");
  if (y.has("link_kernel_compute_slowdown"))
    h.link_kernel_compute_slowdown = hardware_figure(y, "link_kernel_compute_slowdown");
  read_gpu_link(y, h);
  // The block an MLA backend forces is a vLLM block size: --block-size's bound.
  h.mla_block_size = static_cast<int>(y.integer_in("mla_block_size", 1, kMaxBlockTokens, 16));
  if (!is_vllm_block_size(h.mla_block_size))
    throw UsageError(fmt::format("{}: key 'mla_block_size' is {}; expected one of 1, 8, 16, 32, 64, 128, 256",
                                 origin, h.mla_block_size));
  h.notes = y.str_list_or("notes");
  read_measured_link(y, h);
  read_measured_time_model(y, h);
  read_measured_pinning(y, h);
  if (h.link_practical_gbps > h.link_ceiling_gbps()) {
    throw UsageError(fmt::format("{}: link_practical_gbps {} exceeds the link ceiling {:.1f} GB/s", origin,
                                 h.link_practical_gbps, h.link_ceiling_gbps()));
  }
  return h;
}

const std::vector<HardwareSpec>& hardware_catalog() {
  static const std::vector<HardwareSpec> catalog = [] {
    std::vector<HardwareSpec> out;
    for (const auto& e : catalog_entries("hardware"))
      out.push_back(hardware_from_yaml(std::string(e.content), e.origin));
    return out;
  }();
  return catalog;
}

std::vector<std::string> hardware_names() {
  std::vector<std::string> names;
  for (const auto& h : hardware_catalog()) names.push_back(h.name);
  return names;
}

bool is_hardware_file(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
}

std::string to_string(GpuLinkKind k) {
  switch (k) {
    case GpuLinkKind::kNvlink:
      return "nvlink";
    case GpuLinkKind::kInfinityFabric:
      return "infinity-fabric";
    case GpuLinkKind::kPcie:
      return "pcie";
  }
  return "nvlink";
}

namespace {

// What a path --hw names is, where it is not a file: a directory or a device is worded as such,
// not as missing. A FIFO or a device is not read (a FIFO would wait for a writer; /dev/zero never ends).
const char* what_path_is(std::filesystem::file_type kind) {
  using std::filesystem::file_type;
  switch (kind) {
    case file_type::directory:
      return "is a directory, not a hardware file";
    case file_type::fifo:
      return "is a FIFO (a named pipe), not a hardware file";
    case file_type::character:
      return "is a character device, not a hardware file";
    case file_type::block:
      return "is a block device, not a hardware file";
    case file_type::socket:
      return "is a socket, not a hardware file";
    case file_type::not_found:
      return "no such hardware file";
    default:
      return "cannot be read as a hardware file";
  }
}

}  // namespace

HardwareSpec resolve_hardware(const std::string& name) {
  if (is_hardware_file(name)) {
    std::error_code ec;
    const auto kind = std::filesystem::status(name, ec).type();
    if (kind != std::filesystem::file_type::regular) {
      throw UsageError(
          fmt::format("--hw '{}': {}; expected a catalog name ({}) or a YAML file with the catalog's keys "
                      "(docs/size.md, Hardware files)",
                      printable_path(name), what_path_is(kind), join(hardware_names(), ", ")));
    }
    return hardware_from_yaml(read_text_file(name, "--hw"), name);
  }
  const auto wanted = to_lower(name);
  std::vector<std::string> names;
  for (const auto& h : hardware_catalog()) {
    if (to_lower(h.name) == wanted) return h;
    for (const auto& a : h.aliases) {
      if (to_lower(a) == wanted) return h;
    }
    names.push_back(h.name);
  }
  throw UsageError(fmt::format(
      "--hw '{}': unknown hardware; expected one of {}{}", name, join(names, ", "),
      fmt::format(" (closest: {}); for another card give its own hardware file (--hw my-gpu.yaml)",
                  join(closest_names(name, names, 2), ", "))));
}

namespace {

// `word` in `text` between non-alphanumerics: "l4" is not in "nvidia l40s".
bool contains_word(const std::string& text, const std::string& word) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const auto end = at + word.size();
    if ((at == 0 || !alnum(text[at - 1])) && (end == text.size() || !alnum(text[end]))) return true;
  }
  return false;
}

// Lower case, with spaces and underscores as hyphens: "NVIDIA RTX PRO 6000" -> "nvidia-rtx-pro-6000".
std::string device_words(const std::string& name) {
  auto out = to_lower(name);
  for (auto& c : out) {
    if (c == ' ' || c == '_') c = '-';
  }
  return out;
}

}  // namespace

std::string hardware_for_device_name(const std::string& device_name) {
  const auto lower = device_words(device_name);
  std::string best;
  std::size_t best_length = 0;
  for (const auto& hw : hardware_catalog()) {
    std::vector<std::string> names = hw.aliases;
    names.push_back(hw.name);
    for (const auto& n : names) {
      if (contains_word(lower, device_words(n)) && n.size() > best_length) {
        best = hw.name;
        best_length = n.size();
      }
    }
  }
  return best;
}

}  // namespace kvb

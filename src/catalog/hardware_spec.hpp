#pragma once
// A GPU and its node: memory, host link, peak compute (scenarios/hardware/*.yaml).
#include <string>
#include <vector>

namespace kvb {

enum class GpuVendor { kNvidia, kAmd };
enum class HostLinkKind { kPcie, kNvlinkC2C };
// How one node's GPUs talk for tensor-parallel all-reduces. kPcie: no GPU fabric, NCCL's traffic
// crosses the same PCIe links as the CPU tier's copies (L40S, L4, RTX cards, A100 PCIe).
enum class GpuLinkKind { kNvlink, kInfinityFabric, kPcie };
std::string to_string(GpuLinkKind k);
// The GPU's architecture, where a kernel's speed depends on it (hardware key gpu_arch): vLLM's
// weight-only GEMMs (Marlin) run on the mma.sync tensor-core path, the full rate on Ampere, Ada and
// the RTX Blackwell cards (SM 12.x), not on Hopper and datacenter Blackwell (wgmma / tcgen05).
// kUnknown: an operator's file that does not say; what depends on it is then not modelled.
enum class GpuArch { kUnknown, kAmpere, kAda, kHopper, kBlackwell, kBlackwellRtx, kCdna3, kCdna4 };

struct HardwareSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::string source;
  GpuVendor vendor = GpuVendor::kNvidia;
  GpuArch arch = GpuArch::kUnknown;
  double hbm_gb = 0;              // marketing capacity, GB
  double usable_gib = 0;          // what the runtime reports as total (torch mem_get_info), GiB
  double hbm_bandwidth_gbps = 0;  // GB/s
  HostLinkKind link = HostLinkKind::kPcie;
  int pcie_generation = 0;
  int pcie_width = 0;
  double c2c_gbps_per_direction = 0;
  double link_practical_gbps = 0;  // a large pinned copy, one direction (soft; `kvbench dma` measures it)
  // Measured per direction where a committed `kvbench dma` baseline exists: t = t0 + bytes / B
  // per block copy, fitted over the sweep's block sizes (dma/link_fit.hpp). 0 = not measured.
  struct MeasuredLink {
    double h2d_gbps = 0, d2h_gbps = 0;
    double h2d_per_copy_us = 0, d2h_per_copy_us = 0;
    std::string source;  // the baseline file, method and date
  } measured_link;
  // The time model's efficiencies fitted to ground truth measured on this GPU (prefill and
  // CUDA-graph decode of a Llama-3.1-8B shape); absent (source empty) = the generic defaults.
  struct MeasuredTimeModel {
    double compute_efficiency = 0, memory_efficiency = 0, step_overhead_us = 0;
    double attention_efficiency = 0, request_overhead_us = 0, load_efficiency = 0;  // 0 = not fitted
    double gemm_half_tokens = 0;
    std::string source;
  } measured_time_model;
  // Pinning a CPU tier at every server start, measured on this GPU's node (seconds per GiB):
  // /dev/shm mmap + first touch + cudaHostRegister (vLLM's native tier) and cudaHostAlloc (torch
  // pin_memory). Absent (source empty) = not measured here.
  struct MeasuredPinning {
    double register_s_per_gib = 0, host_alloc_s_per_gib = 0;
    std::string source;
  } measured_pinning;
  double bf16_tflops = 0;  // dense
  double fp8_tflops = 0;   // dense; 0 = no FP8 tensor cores (A100): FP8 weights run weight-only
  double fp4_tflops = 0;   // dense; 0 = no FP4 tensor cores (everything before Blackwell and MI355X)
  int gpus_per_node = 8;
  // GPU-to-GPU fabric (NVLink, Infinity Fabric): per-direction bandwidth from the datasheet and the
  // latency of one step of a ring all-reduce (2 (n - 1) steps per all-reduce at TP n); 0 = unknown
  // (tensor-parallel communication not modelled).
  double gpu_link_gbps = 0;
  GpuLinkKind gpu_link_kind = GpuLinkKind::kNvlink;
  double link_kernel_compute_slowdown =
      0;  // measured (kvbench dma --with-compute, kernel method); 0 = unknown
  double gpu_link_latency_us = 0;
  double host_dram_gb = 0;  // per node, typical
  int mla_block_size = 16;  // what vLLM's default MLA backend forces here (FlashMLA 64, CUTLASS MLA 128)
  std::vector<std::string> notes;

  double link_ceiling_gbps() const;  // per direction, theoretical
  std::string link_description() const;
};

const std::vector<HardwareSpec>& hardware_catalog();
// The catalog's names in its order, for help texts: a new GPU is one YAML file, nothing else.
std::vector<std::string> hardware_names();

// Resolves --hw by name or alias (case-insensitive), or reads an operator's own hardware file
// (a path ending in .yaml/.yml or containing '/', the catalog's keys, checked key by key); unknown
// names list the closest.
HardwareSpec resolve_hardware(const std::string& name_or_path);
// Whether `name` names a hardware file rather than a catalog entry.
bool is_hardware_file(const std::string& name);

// The catalog hardware whose name appears in a GPU's name ("NVIDIA H100 80GB HBM3" -> h100;
// the longest match wins, so GH200 is not H200). Empty when none does.
std::string hardware_for_device_name(const std::string& device_name);

HardwareSpec hardware_from_yaml(const std::string& text, const std::string& origin);

}  // namespace kvb

// The verification kernel finds what it must (label gpu; compiled by nvcc): after correct copies it
// reports nothing; a flipped byte, a block left unwritten, or a block from the wrong source offset
// is reported as the lowest failing copy, in device memory and in mapped pinned host memory.
// Exit 0 when every check holds, 1 otherwise, 77 (skipped) without a GPU.
#include <cstdio>
#include <string>
#include <vector>

#include "backend/data_pattern.hpp"
#include "backend/gpu/gpu_buffer.hpp"
#include "backend/gpu/gpu_check.hpp"
#include "backend/gpu/gpu_verify.hpp"
#include "gpu_alias.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

}  // namespace

int main() {
  using namespace kvb;
  int count = 0;
  if (gpuGetDeviceCount(&count) != gpuSuccess || count == 0) {
    std::printf("skip: no GPU\n");
    return 77;
  }
  constexpr std::uint64_t kBlock = 64 << 10;
  constexpr std::uint64_t kBlocks = 256;
  constexpr std::uint64_t kSeed = 11;
  // A source pool holding pool 1's pattern (as a host pool would) and 64 scattered copies.
  std::vector<unsigned char> pattern(kBlock * kBlocks);
  fill_pattern(pattern.data(), pattern.size(), kSeed, 1);
  std::vector<CopyOp> ops;
  for (std::uint64_t i = 0; i < 64; ++i)
    ops.push_back(CopyOp{((i * 37) % kBlocks) * kBlock, (i * 3) * kBlock, kBlock});
  gpuStream_t stream{};
  check(gpuStreamCreateWithFlags(&stream, gpuStreamNonBlocking), "stream");
  for (const auto kind : {GpuBuffer::Kind::kDevice, GpuBuffer::Kind::kPinned}) {
    const std::string where =
        kind == GpuBuffer::Kind::kDevice ? "device memory" : "mapped pinned host memory";
    GpuBuffer dst(kind, kBlock * kBlocks);
    DeviceCopyTable table(ops);
    const auto copy_all = [&] {
      for (const auto& o : ops) {
        check(gpuMemcpy(dst.get() + o.dst_offset, pattern.data() + o.src_offset, kBlock, gpuMemcpyDefault),
              "copy");
      }
    };
    const auto verdict = [&] { return verify_on_device(ops, table, dst, kSeed, 1, 8, stream); };
    copy_all();
    expect(verdict().empty(), where + ": correct copies pass");
    // One flipped byte in copy 41 and one in copy 9: the lowest is reported, with its byte.
    check(gpuMemset(dst.get() + ops[41].dst_offset + 4096, 0x5a, 1), "corrupt");
    check(gpuMemset(dst.get() + ops[9].dst_offset + 80, 0x5a, 1), "corrupt");
    check(gpuDeviceSynchronize(), "sync");
    auto v = verdict();
    expect(v.rfind("copy 9 ", 0) == 0 && v.find("byte 80 differs") != std::string::npos,
           where + ": a flipped byte is found in the lowest failing copy (" + v + ")");
    // A block never written (left zero).
    copy_all();
    check(gpuMemset(dst.get() + ops[63].dst_offset, 0, kBlock), "clear");
    check(gpuDeviceSynchronize(), "sync");
    v = verdict();
    expect(v.rfind("copy 63 ", 0) == 0, where + ": an unwritten block is found (" + v + ")");
    // A block copied from the neighbouring source block.
    copy_all();
    check(gpuMemcpy(dst.get() + ops[20].dst_offset, pattern.data() + ops[20].src_offset + kBlock, kBlock,
                    gpuMemcpyDefault),
          "misplaced copy");
    v = verdict();
    expect(v.rfind("copy 20 ", 0) == 0, where + ": a block from the wrong offset is found (" + v + ")");
  }
  (void)gpuStreamDestroy(stream);
  std::printf("%s\n", failures == 0 ? "gpu_verify_test: all checks held" : "gpu_verify_test: FAILED");
  return failures == 0 ? 0 : 1;
}

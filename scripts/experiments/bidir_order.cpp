// Why ce-batch both ways can trail per-block ce both ways on one host and lead on another
// (issue 14): the same 2 MiB blocks copied both ways at once, submitted five ways, on two
// non-blocking streams (one per direction). Prints each direction over its own span and the
// pair's bytes over the longer span (kvbench's bidir figure until it moved to the union of the spans), medians of 15 repetitions.
// Built and run on a GPU machine by scripts/experiments/bidir_order.sh; not part of kvbench.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gpu_alias.hpp"
#include "backend/gpu/gpu_batch_copy.hpp"
#include "backend/gpu/gpu_buffer.hpp"
#include "backend/gpu/gpu_check.hpp"

using namespace kvb;

namespace {

struct Side {
  std::vector<void*> dst;
  std::vector<const void*> src;
  std::vector<std::size_t> size;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t blocks = argc > 1 ? std::stoul(argv[1]) : 256;
  const std::size_t block = 2u << 20;
  const std::size_t pool = blocks * block;
  GpuBuffer hsrc(GpuBuffer::Kind::kPinned, pool), hdst(GpuBuffer::Kind::kPinned, pool);
  GpuBuffer dsrc(GpuBuffer::Kind::kDevice, pool), ddst(GpuBuffer::Kind::kDevice, pool);
  Side up, down;  // h2d, d2h; block i of the pool reversed, so copies scatter
  for (std::size_t i = 0; i < blocks; ++i) {
    up.dst.push_back(ddst.get() + (blocks - 1 - i) * block);
    up.src.push_back(hsrc.get() + i * block);
    up.size.push_back(block);
    down.dst.push_back(hdst.get() + (blocks - 1 - i) * block);
    down.src.push_back(dsrc.get() + i * block);
    down.size.push_back(block);
  }
  gpuStream_t s_up{}, s_down{};
  check(gpuStreamCreateWithFlags(&s_up, gpuStreamNonBlocking), "stream");
  check(gpuStreamCreateWithFlags(&s_down, gpuStreamNonBlocking), "stream");
  gpuEvent_t e[4];
  for (auto& x : e) check(gpuEventCreate(&x), "event");
  const auto one = [](Side& s, std::size_t i, gpuStream_t st) {
    check(gpuMemcpyAsync(s.dst[i], s.src[i], s.size[i], gpuMemcpyDefault, st), "copy");
  };
  const auto batch = [](Side& s, std::size_t first, std::size_t n, gpuStream_t st) {
#if defined(KVB_HAVE_BATCH_COPY)
    check(batch_copy(s.dst.data() + first, s.src.data() + first, s.size.data() + first, n, st), "batch");
#else
    (void)s, (void)first, (void)n, (void)st;
    std::printf("no batched copy API in this build\n");
    std::exit(2);
#endif
  };
  struct Variant {
    const char* name;
    std::function<void()> submit;
  };
  const std::vector<Variant> variants = {
      {"ce-batch, h2d call first (kvbench)", [&] { batch(up, 0, blocks, s_up); batch(down, 0, blocks, s_down); }},
      {"ce-batch, d2h call first", [&] { batch(down, 0, blocks, s_down); batch(up, 0, blocks, s_up); }},
      {"ce-batch, 8 calls per direction, alternating",
       [&] {
         for (std::size_t c = 0; c < 8; ++c) {
           batch(up, c * blocks / 8, blocks / 8, s_up);
           batch(down, c * blocks / 8, blocks / 8, s_down);
         }
       }},
      {"ce per block, alternating (kvbench)",
       [&] {
         for (std::size_t i = 0; i < blocks; ++i) {
           one(up, i, s_up);
           one(down, i, s_down);
         }
       }},
      {"ce per block, all h2d then all d2h",
       [&] {
         for (std::size_t i = 0; i < blocks; ++i) one(up, i, s_up);
         for (std::size_t i = 0; i < blocks; ++i) one(down, i, s_down);
       }},
  };
  std::printf("%zu blocks of 2 MiB each way (%.2f GB per direction)\n", blocks, pool / 1e9);
  std::printf("%-46s %8s %8s %8s %8s\n", "submission", "h2d", "d2h", "sum", "bidir");
  for (const auto& v : variants) {
    std::vector<double> h, d, both;
    for (int rep = 0; rep < 17; ++rep) {
      check(gpuEventRecord(e[0], s_up), "event");
      check(gpuEventRecord(e[2], s_down), "event");
      v.submit();
      check(gpuEventRecord(e[1], s_up), "event");
      check(gpuEventRecord(e[3], s_down), "event");
      check(gpuDeviceSynchronize(), "sync");
      if (rep < 2) continue;  // warm-ups
      float a = 0, b = 0;
      check(gpuEventElapsedTime(&a, e[0], e[1]), "time");
      check(gpuEventElapsedTime(&b, e[2], e[3]), "time");
      h.push_back(pool / (a * 1e-3) / 1e9);
      d.push_back(pool / (b * 1e-3) / 1e9);
      both.push_back(2.0 * pool / (std::max(a, b) * 1e-3) / 1e9);
    }
    std::printf("%-46s %8.1f %8.1f %8.1f %8.1f\n", v.name, median(h), median(d), median(h) + median(d), median(both));
  }
  return 0;
}

// kvbench storage: the chunk pattern and its verifier, the sweep plan and its refusals, the
// directory probe's words, and the JSON document's round trip.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "compare/benchmark_set.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "storage/chunk_pattern.hpp"
#include "storage/storage_case.hpp"
#include "storage/storage_dir.hpp"
#include "storage/storage_json.hpp"

namespace kvb {
namespace {

constexpr std::uint64_t kChunk = 8192;

TEST(ChunkPattern, EachChunkIsItsSliceOfTheWholeBuffer) {
  std::vector<std::uint8_t> all(4 * kChunk), one(kChunk);
  fill_chunks(all.data(), all.size(), 5);
  for (std::int64_t i = 0; i < 4; ++i) {
    fill_chunk(one.data(), kChunk, 5, i);
    EXPECT_EQ(0, std::memcmp(one.data(), all.data() + i * kChunk, kChunk)) << "chunk " << i;
  }
  EXPECT_EQ(verify_chunks(all.data(), kChunk, 4, 5), "");
}

TEST(ChunkPattern, AnotherChunksOrSeedsDataDoesNotPass) {
  std::vector<std::uint8_t> c(kChunk);
  fill_chunk(c.data(), kChunk, 5, 2);
  EXPECT_FALSE(check_chunk(c.data(), kChunk, 5, 2).found);
  EXPECT_TRUE(check_chunk(c.data(), kChunk, 5, 3).found);  // a read from the wrong offset
  EXPECT_TRUE(check_chunk(c.data(), kChunk, 6, 2).found);  // a stale file from another run
  std::vector<std::uint8_t> zero(kChunk, 0);
  EXPECT_TRUE(check_chunk(zero.data(), kChunk, 5, 0).found);  // a read that never landed
}

TEST(ChunkPattern, AFlippedByteIsNamedByChunkAndWord) {
  std::vector<std::uint8_t> all(3 * kChunk);
  fill_chunks(all.data(), all.size(), 1);
  all[2 * kChunk + 1003] ^= 0x10;  // chunk 2, word at byte 1000
  const auto detail = verify_chunks(all.data(), kChunk, 3, 1);
  EXPECT_NE(detail.find("chunk 2 byte 1000"), std::string::npos) << detail;
}

StorageSweep sweep() {
  StorageSweep s;
  s.layouts = {StorageLayout::kFilePerChunk, StorageLayout::kPerRankFile};
  s.modes = {IoMode::kBuffered, IoMode::kDirect};
  s.engines = {IoEngine::kThreads, IoEngine::kIoUring};
  s.chunk_sizes = {256 * 1024, 4 << 20};
  s.threads = {1, 4};
  s.queue_depths = {1, 8, 32};
  s.size_bytes = 64 << 20;
  return s;
}

TEST(StoragePlan, EveryCombinationOnceAndThreadsTakeDepthOne) {
  const auto cases = plan_cases(sweep());
  // 2 layouts x 2 modes x 2 chunks x 2 thread counts x (threads: 1 depth + io_uring: 3 depths).
  EXPECT_EQ(cases.size(), 2u * 2 * 2 * 2 * (1 + 3));
  for (const auto& c : cases) {
    if (c.engine == IoEngine::kThreads) {
      EXPECT_EQ(c.queue_depth, 1);
    }
    EXPECT_EQ(c.bytes(), 64u << 20);  // 64 MiB divides by both chunks
  }
}

TEST(StoragePlan, ChunksAreCountedDownToWholeOnes) {
  auto s = sweep();
  s.chunk_sizes = {3 << 20};
  s.size_bytes = 10 << 20;
  EXPECT_EQ(plan_cases(s).front().chunks, 3);  // 10 MiB / 3 MiB
}

TEST(StoragePlan, RefusesChunksODirectCannotTakeOrTheSizeCannotHold) {
  for (const std::uint64_t bad :
       {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{4096 + 512}, (std::uint64_t{1} << 30) + 4096}) {
    auto s = sweep();
    s.chunk_sizes = {bad};
    s.size_bytes = std::uint64_t{4} << 30;
    EXPECT_THROW(check_sweep(s), UsageError) << bad;
  }
  auto s = sweep();
  s.size_bytes = 1 << 20;  // smaller than the 4 MiB chunk
  EXPECT_THROW(check_sweep(s), UsageError);
  s.size_bytes = 4 << 20;
  EXPECT_NO_THROW(check_sweep(s));
}

TEST(StoragePlan, ListsOfCountsAreStrict) {
  EXPECT_EQ(parse_int_list("1,4,16", "--threads", 256), (std::vector<int>{1, 4, 16}));
  EXPECT_THROW(parse_int_list("0", "--threads", 256), UsageError);
  EXPECT_THROW(parse_int_list("4,4", "--threads", 256), UsageError);
  EXPECT_THROW(parse_int_list("257", "--threads", 256), UsageError);
  EXPECT_THROW(parse_int_list("2x", "--threads", 256), UsageError);
  EXPECT_THROW(parse_storage_layout("per-layer", "--layout"), UsageError);
  EXPECT_THROW(parse_io_mode("sync", "--mode"), UsageError);
}

TEST(StorageDir, NamesTmpfsAndItsODirectRefusal) {
  EXPECT_EQ(fs_type_name(0x01021994), "tmpfs");
  EXPECT_EQ(fs_type_name(0xEF53), "ext4");
  EXPECT_EQ(fs_type_name(0x1234), "0x1234");
  EXPECT_NE(direct_refusal_text(EINVAL).find("EINVAL"), std::string::npos);
}

TEST(StorageDir, RefusesAMissingDirectoryAndAFile) {
  EXPECT_THROW(probe_storage_dir("/nonexistent/kvbench"), UsageError);
  EXPECT_THROW(probe_storage_dir("/proc/self/status"), UsageError);
  StorageDirFacts d;
  d.path = "/x";
  d.free_bytes = 100;
  EXPECT_THROW(require_room(d, 101), UsageError);
  EXPECT_NO_THROW(require_room(d, 100));
}

// A file per chunk needs an inode per chunk: a file system with fewer free was found full mid-run
// (exit 3, "No space left on device") instead of refused up front.
TEST(StorageDir, RefusesMoreFilesThanFreeInodesWhereTheyAreCounted) {
  StorageDirFacts d;
  d.path = "/x";
  d.free_bytes = 1 << 30;
  EXPECT_NO_THROW(require_room(d, 100, 1'000'000));  // btrfs, procfs: no inode count, no bound
  d.free_files = 3;
  EXPECT_NO_THROW(require_room(d, 100, 3));
  try {
    require_room(d, 100, 4);
    ADD_FAILURE() << "4 files in 3 free inodes";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("a case writes 4 files but its file system has 3 free inodes"),
              std::string::npos)
        << e.what();
  }
}

StorageDocument document() {
  StorageDocument doc;
  doc.dir.path = "/mnt/nvme";
  doc.dir.fs_type = "xfs";
  doc.dir.free_bytes = 1ULL << 40;
  doc.dir.direct_refusal = direct_refusal_text(EINVAL);
  doc.repeats = 3;
  doc.io_uring_built = true;
  StorageRecord r;
  r.tcase =
      StorageCase{StorageLayout::kPerRankFile, IoMode::kBuffered, IoEngine::kIoUring, 4 << 20, 16, 4, 8, 9};
  r.dir = doc.dir.path;
  r.fs_type = doc.dir.fs_type;
  r.hostname = "node1";
  r.bytes_per_pass = 64 << 20;
  r.write = pass_figures({0.05, 0.04, 0.06}, r.bytes_per_pass);
  r.read = pass_figures({0.02, 0.03, 0.025}, r.bytes_per_pass);
  r.buffer_lock_refusal = "mlock failed";
  r.verified = true;
  doc.records.push_back(r);
  auto w = r;
  w.tcase.mode = IoMode::kDirect;
  w.waived = true;
  w.waive_reason = doc.dir.direct_refusal;
  doc.records.push_back(w);
  return doc;
}

TEST(StorageJson, RoundTripsByteForByte) {
  const auto first = json_text(storage_json(document()), 2);
  const auto back = storage_document_from_json(nlohmann::json::parse(first), "s.json");
  EXPECT_EQ(json_text(storage_json(back), 2), first);
  // The median pass of 0.05 s over 64 MiB: 67108864 / 0.05 / 1e9 = 1.342 GB/s.
  EXPECT_NEAR(back.records.front().write.median_gbps, 1.34217728, 1e-9);
}

TEST(StorageJson, RefusesAnImpossiblePass) {
  auto j = storage_json(document());
  j["records"][0]["read"]["samples"][0] = 1e-9;  // 64 MiB in a nanosecond
  EXPECT_THROW(storage_document_from_json(j, "s.json"), UsageError);
  j = storage_json(document());
  j["records"][0]["layout"] = "sideways";
  EXPECT_THROW(storage_document_from_json(j, "s.json"), UsageError);
}

TEST(StorageJson, CompareReadsAWriteAndAReadPerCase) {
  const auto set = benchmark_set_from_json(storage_json(document()), "s.json");
  EXPECT_EQ(set.kind, "kvbench storage");
  ASSERT_EQ(set.entries.size(), 4u);  // 2 cases x write, read
  EXPECT_NE(set.entries[1].label.find("read"), std::string::npos);
  ASSERT_EQ(set.entries[1].samples.size(), 3u);
  EXPECT_NEAR(set.entries[1].samples[0], (64 << 20) / 0.02 / 1e9, 1e-9);
  EXPECT_TRUE(set.entries[2].waived);
}

}  // namespace
}  // namespace kvb

// The report's storage section: drawn from a kvbench storage document read through its reader,
// one row per case, skipped cases with their reason, absent without storage results.
#include <gtest/gtest.h>

#include "report/report_sections.hpp"
#include "storage/storage_json.hpp"

namespace kvb {
namespace {

nlohmann::json storage_doc() {
  StorageDocument doc;
  doc.dir.path = "/mnt/<nvme>";
  doc.dir.fs_type = "xfs";
  doc.dir.free_bytes = 1ULL << 40;
  doc.dir.direct_refusal = "open(O_DIRECT) failed: EINVAL";
  doc.repeats = 3;
  StorageRecord r;
  r.tcase =
      StorageCase{StorageLayout::kPerRankFile, IoMode::kBuffered, IoEngine::kThreads, 2 << 20, 8, 4, 1, 1};
  r.bytes_per_pass = 16 << 20;
  r.write = pass_figures({0.01, 0.01, 0.01}, r.bytes_per_pass);    // 16 MiB / 10 ms = 1.68 GB/s
  r.read = pass_figures({0.004, 0.004, 0.004}, r.bytes_per_pass);  // 4.19 GB/s
  r.verified = true;
  doc.records.push_back(r);
  r.tcase.mode = IoMode::kDirect;
  r.waived = true;
  r.waive_reason = doc.dir.direct_refusal;
  doc.records.push_back(r);
  return storage_json(doc);
}

TEST(StorageSection, OneRowPerCaseFromTheDocument) {
  ReportInputs in;
  add_report_document(in, storage_doc(), "s.json");
  ASSERT_EQ(in.storage.size(), 1u);
  const auto html = storage_section_html(in.storage);
  EXPECT_NE(html.find("<td>1.68</td><td>4.19</td><td>yes</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("skipped: open(O_DIRECT) failed: EINVAL"), std::string::npos);
  EXPECT_NE(html.find("/mnt/&lt;nvme&gt;"), std::string::npos);  // the path escaped
  EXPECT_EQ(storage_section_html({}), "");
}

}  // namespace
}  // namespace kvb

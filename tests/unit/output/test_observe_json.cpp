// The kvbench/observe/v1 document read back whole (issue 54 §2): each verdict's window from the test
// dumps, written again, gives the same bytes; the report shows the reading and the verdict it read;
// what observe never writes is refused, naming the file.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "observe/prom_text.hpp"
#include "output/observe/observe_json.hpp"
#include "output/observe/observe_words.hpp"
#include "report/report_inputs.hpp"
#include "report/report_sections.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

ObserveResult dumps(const std::string& engine_case) {
  const auto dir = std::string(KVBENCH_TEST_DATA) + "/observe/" + engine_case;
  const auto before = read_text_file(dir + "_before.prom", "before");
  const auto after = read_text_file(dir + "_after.prom", "after");
  return observe_window(parse_prom_text(before, "before"), parse_prom_text(after, "after"), 60, "after");
}

TEST(ObserveJson, EachEnginesWindowRoundTripsByteForByte) {
  for (const auto* c : {"vllm_pays", "vllm_stores", "sglang_hicache"}) {
    const ObserveSources sources{"http://a:8000/metrics", "http://a:8000/metrics", 4, "clock", c[0] == 's'};
    const auto doc = observe_json(dumps(c), sources);
    const auto back = observe_document_from_json(doc, "observe.json");
    EXPECT_EQ(observe_json(back.result, back.sources).dump(), doc.dump()) << c;
    EXPECT_EQ(back.result.readings.size(), doc.at("readings").size()) << c;
  }
}

TEST(ObserveJson, TheReportShowsTheVerdictAndTheReadingsItRead) {
  const ObserveSources sources{"before.prom", "after.prom", 2, "mtime", false};
  const auto r = dumps("vllm_pays");
  ReportInputs in;
  add_report_document(in, observe_json(r, sources), "observe.json");
  ASSERT_EQ(in.observations.size(), 1u);
  const auto html = observe_section_html(in.observations);
  // 4.5 GB loaded of 6 GB stored over the window (test_observe_window.cpp works it out by hand).
  EXPECT_NE(html.find("Verdict:</strong> " + verdict_text(r)), std::string::npos);
  EXPECT_NE(html.find("vLLM over 60.0 s (before.prom -&gt; after.prom)"), std::string::npos);
  EXPECT_NE(html.find("4.50 GB"), std::string::npos);
}

TEST(ObserveJson, WhatObserveNeverWritesIsRefusedByName) {
  const auto doc = observe_json(dumps("vllm_pays"), ObserveSources{"a", "b", 2, "given", false});
  auto bad = doc;
  bad["verdict"]["kind"] = "maybe";
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  bad = doc;
  bad["readings"][0]["figure"] = "gpu_prefix_misses";
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  bad = doc;
  bad["readings"][0]["after"] = -1;
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
}

// A document edited by hand must not reach the report as a measurement: every figure the verdict
// words is re-derived from the readings, and a count too large for its whole-number words is refused.
TEST(ObserveJson, AVerdictOrFigureTheReadingsDoNotGiveIsRefused) {
  const auto doc = observe_json(dumps("vllm_pays"), ObserveSources{"a", "b", 2, "given", false});
  ASSERT_EQ(doc.at("verdict").at("kind"), "pays");
  auto bad = doc;
  bad["verdict"]["kind"] = "not_used";  // a verdict observe writes, but not the one these readings give
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  bad = doc;
  bad["verdict"]["evidence"]["hit_tokens"] = 900000.0;  // the readings give 36,000 of 72,000
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  bad = doc;
  bad["verdict"]["evidence"]["hit_tokens"] = 1e20;  // past a 64-bit count: it printed "-0 of ..."
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  bad = doc;
  bad["readings"][0]["delta"] = 7.0;  // not after - before
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  bad = doc;
  const double delta = bad["readings"][0]["delta"];
  bad["readings"][0]["per_second"] = delta;  // the window is 60 s, not 1 s
  EXPECT_THROW(observe_document_from_json(bad, "bad.json"), UsageError);
  EXPECT_NO_THROW(observe_document_from_json(doc, "good.json"));
}

}  // namespace
}  // namespace kvb

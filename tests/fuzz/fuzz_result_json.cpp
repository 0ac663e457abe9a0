// libFuzzer target: every reader of a kvbench result document (dma, storage, simulate, size, doctor,
// calibrate), compare's benchmark sets and --link-profile. Valid JSON of any shape must end in a result or a
// UsageError / nlohmann::json::exception (which the commands turn into exit 2 naming the file), never a
// crash, undefined behaviour or another exception.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "calibrate/calibration_file.hpp"
#include "compare/benchmark_set.hpp"
#include "core/errors.hpp"
#include "dma/dma_json.hpp"
#include "dma/link_profile_fit.hpp"
#include "doctor/doctor_json.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "perf/link_curve.hpp"
#include "sim/sim_json.hpp"
#include "storage/storage_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;  // not JSON: read_json_file's message, exit 2
  }
  const auto quiet = [](auto&& read) {
    try {
      read();
    } catch (const kvb::UsageError&) {
    } catch (const nlohmann::json::exception&) {
    }
  };
  quiet([&] {
    const auto records = kvb::dma_records_from_json(doc, "fuzz.json");
    (void)kvb::link_profile_from_dma_records(records, kvb::Method::kCe, "fuzz.json");
  });
  quiet([&] { (void)kvb::simulate_json(kvb::simulate_document_from_json(doc, "fuzz.json")); });
  quiet([&] { (void)kvb::size_document_json(kvb::size_document_from_json(doc, "fuzz")); });
  quiet([&] { (void)kvb::benchmark_set_from_json(doc, "fuzz.json"); });
  quiet([&] { (void)kvb::storage_json(kvb::storage_document_from_json(doc, "fuzz.json")); });
  quiet([&] { (void)kvb::doctor_json(kvb::doctor_report_from_json(doc)); });
  quiet([&] { (void)kvb::calibration_from_json(doc, "fuzz.json"); });
  return 0;
}

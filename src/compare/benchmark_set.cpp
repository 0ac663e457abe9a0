#include "compare/benchmark_set.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "dma/dma_json.hpp"
#include "storage/storage_json.hpp"

namespace kvb {
namespace {

BenchmarkSet from_dma(const nlohmann::json& doc, const std::string& origin) {
  BenchmarkSet set;
  set.origin = origin;
  set.kind = "kvbench dma";
  std::set<std::string> devices;
  for (const auto& r : dma_records_from_json(doc, origin)) {
    const auto& c = r.tcase;
    BenchmarkEntry e;
    // A copy kernel's CTA budget and the device index are part of what was measured: --device all
    // results compare device by device.
    e.key = dma_identity(r.device.backend, r.device.name, method_label(c), to_string(c.direction),
                         c.block_bytes, to_string(c.layout), c.layers,
                         to_string(c.host_mem) + (c.with_compute ? "+compute" : "")) +
            fmt::format("\n#{}", r.device.index);
    e.label =
        fmt::format("{} {} {}", method_label(c), to_string(c.direction), format_block_size(c.block_bytes));
    if (r.device.index != 0) e.label = fmt::format("dev {} {}", r.device.index, e.label);
    if (c.layout == Layout::kPerLayer) e.label += fmt::format(" /{}L", c.layers);
    if (c.host_mem != HostMemKind::kPinned) e.label += " " + to_string(c.host_mem);
    if (c.with_compute) e.label += " +compute";
    e.unit = "GB/s";
    e.waived = r.waived;
    for (const double s : r.samples_s) {
      if (!(s > 0))
        throw UsageError(
            fmt::format("{}: record {} has a sample of {} s; expected positive times", origin, r.id, s));
      e.samples.push_back(r.bytes / s / 1e9);
    }
    devices.insert(r.device.backend + " " + r.device.name);
    const auto same_device = [&](const DeviceInfo& d) {
      return d.backend == r.device.backend && d.name == r.device.name && d.index == r.device.index;
    };
    if (r.device.occupancy.disturbed() &&
        std::none_of(set.disturbed.begin(), set.disturbed.end(), same_device)) {
      set.disturbed.push_back(r.device);
    }
    set.entries.push_back(std::move(e));
  }
  set.setting = join(std::vector<std::string>(devices.begin(), devices.end()), ", ");
  return set;
}

// kvbench storage: each case gives two entries, its write and its read, one sample per pass.
BenchmarkSet from_storage(const nlohmann::json& doc, const std::string& origin) {
  BenchmarkSet set;
  set.origin = origin;
  set.kind = "kvbench storage";
  const auto d = storage_document_from_json(doc, origin);
  set.setting = fmt::format("{} ({})", printable_path(d.dir.path), d.dir.fs_type);
  for (const auto& r : d.records) {
    for (const auto* pass : {&r.write, &r.read}) {
      const std::string dir = pass == &r.write ? "write" : "read";
      BenchmarkEntry e{
          "storage\n" + r.tcase.id() + "\n" + dir, r.tcase.id() + " " + dir, "GB/s", {}, r.waived};
      for (const double s : pass->samples_s) e.samples.push_back(r.bytes_per_pass / s / 1e9);
      set.entries.push_back(std::move(e));
    }
  }
  return set;
}

double seconds_per_unit(const std::string& unit, const std::string& origin) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1;
  throw UsageError(fmt::format("{}: time_unit '{}'; expected ns, us, ms or s", origin, unit));
}

// Google Benchmark: each repetition of a benchmark is one sample; aggregates are ignored.
BenchmarkSet from_google_benchmark(const nlohmann::json& doc, const std::string& origin) {
  BenchmarkSet set;
  set.origin = origin;
  set.kind = "Google Benchmark";
  const auto& ctx = doc.at("context");
  set.setting = fmt::format("{} ({} CPUs)", ctx.value("host_name", std::string("unknown host")),
                            ctx.value("num_cpus", 0));
  std::map<std::string, std::size_t> index;
  for (const auto& b : doc.at("benchmarks")) {
    if (b.value("run_type", std::string("iteration")) != "iteration") continue;
    const auto name =
        b.contains("run_name") ? b.at("run_name").get<std::string>() : b.at("name").get<std::string>();
    auto [it, inserted] = index.emplace(name, set.entries.size());
    if (inserted) {
      BenchmarkEntry e;
      e.key = "gbench\n" + name;
      e.label = name;
      e.unit = "runs/s";
      set.entries.push_back(std::move(e));
    }
    auto& e = set.entries[it->second];
    if (b.value("error_occurred", false)) {
      e.waived = true;
      continue;
    }
    const double t =
        b.at("real_time").get<double>() * seconds_per_unit(b.value("time_unit", std::string("ns")), origin);
    // A picosecond to four months: outside that a time is a broken file, not a measurement.
    if (!(t >= 1e-12 && t <= 1e7)) {
      throw UsageError(fmt::format(
          "{}: benchmark {} has real_time {:g} s; expected a time from 1e-12 to 1e7 s", origin, name, t));
    }
    e.samples.push_back(1.0 / t);
  }
  return set;
}

}  // namespace

std::string dma_identity(const std::string& backend, const std::string& device, const std::string& method,
                         const std::string& direction, std::uint64_t block_bytes, const std::string& layout,
                         int layers, const std::string& host_mem) {
  return fmt::format("dma\n{}\n{}\n{}\n{}\n{}\n{}/{}\n{}", backend, device, method, direction, block_bytes,
                     layout, layers, host_mem);
}

BenchmarkSet benchmark_set_from_json(const nlohmann::json& doc, const std::string& origin) {
  BenchmarkSet set;
  try {
    if (schema_of(doc) == kDmaSchema) {
      set = from_dma(doc, origin);
    } else if (schema_of(doc) == kStorageSchema) {
      set = from_storage(doc, origin);
    } else if (doc.is_object() && doc.contains("context") && doc.contains("benchmarks")) {
      set = from_google_benchmark(doc, origin);
    } else {
      const std::string schema = schema_of(doc, "none");
      throw UsageError(
          fmt::format("{}: schema '{}' cannot be compared; expected a kvbench dma result (\"schema\": "
                      "\"{}\"), a kvbench storage result (\"{}\") or Google Benchmark JSON "
                      "(--benchmark_format=json)",
                      origin, schema, kDmaSchema, kStorageSchema));
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed {} ({})", origin,
                                 doc.contains("benchmarks") ? "Google Benchmark JSON" : "kvbench dma result",
                                 json_error_text(e)));
  }
  std::set<std::string> keys;
  for (const auto& e : set.entries) {
    if (!keys.insert(e.key).second) {
      throw UsageError(
          fmt::format("{}: '{}' occurs twice; expected each case once per file", origin, e.label));
    }
  }
  if (set.entries.empty())
    throw UsageError(fmt::format("{}: no records; expected at least one measured case", origin));
  return set;
}

BenchmarkSet load_benchmark_set(const std::string& path) {
  const auto label = printable_path(path);  // named in text and JSON: its raw bytes may not fit
  return benchmark_set_from_json(read_json_file(path, label), label);
}

std::optional<DisturbedRun> first_disturbed(const BenchmarkSet& base, const BenchmarkSet& head) {
  for (const auto* set : {&base, &head}) {
    if (!set->disturbed.empty()) return DisturbedRun{set->origin, set->disturbed.front()};
  }
  return std::nullopt;
}

}  // namespace kvb

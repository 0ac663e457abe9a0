#include "storage/storage_json.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "kvbench_config.hpp"

namespace kvb {

namespace {

nlohmann::json pass_json(const PassFigures& f) {
  return {{"samples", f.samples_s},
          {"median_gbps", f.median_gbps},
          {"p10_gbps", f.p10_gbps},
          {"p90_gbps", f.p90_gbps},
          {"relative_noise", f.relative_noise}};
}

nlohmann::json record_json(const StorageRecord& r) {
  const auto& c = r.tcase;
  nlohmann::json j{{"id", c.id()},
                   {"layout", to_string(c.layout)},
                   {"mode", to_string(c.mode)},
                   {"engine", to_string(c.engine)},
                   {"chunk_bytes", c.chunk_bytes},
                   {"chunks", c.chunks},
                   {"threads", c.threads},
                   {"queue_depth", c.queue_depth},
                   {"seed", c.seed},
                   {"hostname", r.hostname},
                   {"waived", r.waived}};
  if (r.waived) {
    j["waive_reason"] = r.waive_reason;
    return j;
  }
  j["bytes_per_pass"] = r.bytes_per_pass;
  j["page_cache"] = to_string(r.cache);
  j["host_buffer_locked"] = r.buffer_locked;
  if (!r.buffer_locked) j["host_buffer_lock_refusal"] = r.buffer_lock_refusal;
  j["write"] = pass_json(r.write);
  j["read"] = pass_json(r.read);
  j["verified"] = r.verified;
  if (!r.verified) j["verify_detail"] = r.verify_detail;
  return j;
}

}  // namespace

nlohmann::json storage_json(const StorageDocument& doc) {
  nlohmann::json out;
  out["schema"] = kStorageSchema;
  out["tool"] = std::string("kvbench ") + KVBENCH_VERSION;
  out["unit"] = "GB/s (10^9 bytes per second); samples in seconds per pass over every chunk";
  out["dir"] = doc.dir.path;
  out["fs_type"] = doc.dir.fs_type;
  out["free_bytes"] = doc.dir.free_bytes;
  out["direct_supported"] = doc.dir.direct_supported;
  if (!doc.dir.direct_supported) out["direct_refusal"] = doc.dir.direct_refusal;
  out["repeats"] = doc.repeats;
  out["io_uring"] = doc.io_uring_built ? "built" : "not_built";
  out["gpudirect_storage"] = "not_built";  // no cuFile in this build: nothing measured GPU-direct
  if (doc.interrupted) out["interrupted"] = true;
  out["records"] = nlohmann::json::array();
  for (const auto& r : doc.records) out["records"].push_back(record_json(r));
  return out;
}

namespace {

PassFigures read_pass(const nlohmann::json& j, double bytes, const std::string& where) {
  auto samples = j.at("samples").get<std::vector<double>>();
  const double min_s = bytes / (kMaxStorageGbps * 1e9);
  for (const double s : samples) {
    if (!(s >= min_s) || !(s <= 1e7))
      throw UsageError(
          fmt::format("{}: a pass of {:g} s; expected seconds from {:g} to 1e7", where, s, min_s));
  }
  return pass_figures(std::move(samples), bytes);  // the figures follow from the samples
}

StorageCase read_case(const nlohmann::json& j, const std::string& where) {
  StorageCase c;
  c.layout = parse_storage_layout(j.at("layout").get<std::string>(), where + ": layout");
  c.mode = parse_io_mode(j.at("mode").get<std::string>(), where + ": mode");
  c.engine = parse_io_engine(j.at("engine").get<std::string>(), where + ": engine");
  c.chunk_bytes = static_cast<std::uint64_t>(json_integer_in(j, "chunk_bytes", 1, kMaxChunkBytes, where));
  c.chunks = json_integer_in(j, "chunks", 1, kMaxCount, where);
  c.threads = static_cast<int>(json_integer_in(j, "threads", 1, kMaxThreads, where));
  c.queue_depth = static_cast<int>(json_integer_in(j, "queue_depth", 1, kMaxQueueDepth, where));
  if (const auto it = j.find("seed"); it != j.end() && it->is_number_unsigned())
    c.seed = it->get<std::uint64_t>();
  return c;
}

StorageRecord read_record(const nlohmann::json& j, const std::string& origin, const StorageDirFacts& dir) {
  StorageRecord r;
  const auto where = fmt::format("{}: record {}", origin, j.at("id").get<std::string>());
  r.tcase = read_case(j, where);
  r.dir = dir.path;
  r.fs_type = dir.fs_type;
  r.hostname = j.value("hostname", std::string());
  r.waived = j.at("waived").get<bool>();
  r.waive_reason = j.value("waive_reason", std::string());
  if (r.waived) return r;
  r.bytes_per_pass = static_cast<double>(r.tcase.bytes());
  r.cache = parse_cache_bypass(j.at("page_cache").get<std::string>(), where);
  r.buffer_locked = j.at("host_buffer_locked").get<bool>();
  r.buffer_lock_refusal = j.value("host_buffer_lock_refusal", std::string());
  r.write = read_pass(j.at("write"), r.bytes_per_pass, where + ": write");
  r.read = read_pass(j.at("read"), r.bytes_per_pass, where + ": read");
  if (r.write.samples_s.empty() || r.read.samples_s.size() != r.write.samples_s.size())
    throw UsageError(where + ": write and read samples; expected one of each per repetition");
  r.verified = j.at("verified").get<bool>();
  r.verify_detail = j.value("verify_detail", std::string());
  return r;
}

}  // namespace

StorageDocument storage_document_from_json(const nlohmann::json& doc, const std::string& origin) {
  if (schema_of(doc) != kStorageSchema) {
    throw UsageError(fmt::format("{}: not a kvbench storage result (expected \"schema\": \"{}\")", origin,
                                 kStorageSchema));
  }
  StorageDocument out;
  try {
    out.dir.path = doc.at("dir").get<std::string>();
    out.dir.fs_type = doc.value("fs_type", std::string());
    out.dir.free_bytes = static_cast<std::uint64_t>(json_number_or(doc, "free_bytes", 0, 1e19, 0.0, origin));
    out.dir.direct_supported = doc.at("direct_supported").get<bool>();
    out.dir.direct_refusal = doc.value("direct_refusal", std::string());
    out.repeats = static_cast<int>(json_integer_in(doc, "repeats", 1, 1000, origin));
    out.io_uring_built = doc.value("io_uring", std::string()) == "built";
    out.interrupted = doc.value("interrupted", false);
    for (const auto& j : doc.at("records")) out.records.push_back(read_record(j, origin, out.dir));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed storage result ({})", origin, json_error_text(e)));
  }
  return out;
}

}  // namespace kvb

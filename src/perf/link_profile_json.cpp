#include "perf/link_profile_json.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a link can have: GB/s (no host link is near 1e6), seconds per copy (a copy's
// fixed cost is microseconds), a slowdown factor, block sizes and records of one result.
constexpr double kMaxGbps = 1e6;
constexpr double kMaxPerCopySeconds = 1;
constexpr double kMaxSlowdown = 1e3;
constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;

// LinkFigures' names in a document (stable: documents are read back by later releases).
constexpr TagTable<LinkFigures, 3> kFigures{{{LinkFigures::kDatasheet, "datasheet"},
                                             {LinkFigures::kTableMeasured, "table-measured"},
                                             {LinkFigures::kFitted, "fitted"}}};

json origin_to_json(const LinkOrigin& o) {
  return {{"figures", tag_of(kFigures, o.figures)},
          {"hardware", o.hardware},
          {"measured_by", o.measured_by},
          {"file", o.file},
          {"device", o.device},
          {"method", o.method},
          {"block_sizes", o.block_sizes},
          {"host_backend", o.host_backend}};
}
LinkOrigin origin_from_json(const JsonFields& r, const json& j) {
  LinkOrigin o;
  o.figures = tag_field(r, j, "figures", kFigures);
  o.hardware = r.text(j, "hardware");
  o.measured_by = r.text(j, "measured_by");
  o.file = r.text(j, "file");
  o.device = r.text(j, "device");
  o.method = r.text(j, "method");
  o.block_sizes = static_cast<std::size_t>(r.integer(j, "block_sizes", 0, kMaxCount));
  o.host_backend = r.flag(j, "host_backend");
  return o;
}

json curve_to_json(const LinkCurve& c) { return {{"gbps", c.gbps}, {"per_copy_s", c.per_copy_s}}; }
LinkCurve curve_from_json(const JsonFields& r, const json& j) {
  return {.gbps = r.required(j, "gbps", kMaxGbps),
          .per_copy_s = r.required(j, "per_copy_s", kMaxPerCopySeconds)};
}

// Null where kernel_compute_slowdown's origin is not known (the table has no figure, no result gave one).
json slowdown_origin_to_json(const std::optional<SlowdownOrigin>& o) {
  if (!o) return nullptr;
  return {{"hardware", o->hardware}, {"file", o->file}, {"records", o->records}};
}
std::optional<SlowdownOrigin> slowdown_origin_from_json(const JsonFields& r, const json& j) {
  const auto it = j.find("slowdown_origin");
  if (it == j.end() || it->is_null()) return std::nullopt;
  const auto& o = r.object(j, "slowdown_origin");
  return SlowdownOrigin{.hardware = r.text(o, "hardware"),
                        .file = r.text(o, "file"),
                        .records = static_cast<std::size_t>(r.integer(o, "records", 0, kMaxCount))};
}

}  // namespace

json link_profile_to_json(const LinkProfile& p) {
  return {{"origin", origin_to_json(p.origin)},
          {"h2d", curve_to_json(p.h2d)},
          {"d2h", curve_to_json(p.d2h)},
          {"kernel_compute_slowdown", p.kernel_compute_slowdown},
          {"slowdown_origin", slowdown_origin_to_json(p.slowdown_origin)}};
}

LinkProfile link_profile_from_json(const json& j, const std::string& where) {
  const JsonFields r(where + ": link");
  if (!j.is_object()) {
    throw UsageError(
        fmt::format("{} is a {}; expected an object with origin, h2d and d2h", r.where(), j.type_name()));
  }
  LinkProfile p;
  p.origin = origin_from_json(r, r.object(j, "origin"));
  p.h2d = curve_from_json(r, r.object(j, "h2d"));
  p.d2h = curve_from_json(r, r.object(j, "d2h"));
  p.kernel_compute_slowdown = r.required(j, "kernel_compute_slowdown", kMaxSlowdown);
  p.slowdown_origin = slowdown_origin_from_json(r, j);
  return p;
}

}  // namespace kvb

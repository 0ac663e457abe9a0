#include "sim/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/yaml_reader.hpp"
#include "sim/yaml_checks.hpp"

namespace kvb {

double Distribution::sample(Rng& rng) const {
  double v = 0;
  switch (kind) {
    case Kind::kFixed:
      return value;
    case Kind::kUniform:
      return rng.uniform(min, max);
    case Kind::kLognormal:
      v = median * std::exp(sigma * rng.normal());
      break;
    case Kind::kExponential:
      v = rng.exponential(mean);
      break;
  }
  v = std::max(v, min);
  if (max > 0) v = std::min(v, max);
  return v;
}

std::int64_t Distribution::sample_count(Rng& rng, std::int64_t floor) const {
  return std::max<std::int64_t>(floor, std::llround(sample(rng)));
}

double Distribution::expected() const {
  switch (kind) {
    case Kind::kFixed:
      return value;
    case Kind::kUniform:
      return 0.5 * (min + max);
    case Kind::kLognormal:
      return median * std::exp(0.5 * sigma * sigma);
    case Kind::kExponential:
      return mean;
  }
  return 0;
}

namespace {

// A lognormal (median, sigma) or exponential (mean), each optionally clipped to min..max, whose
// centre must lie within the clip range.
template <typename Check>
void read_skewed(Distribution& d, const YamlObject& o, const std::string& kind, const std::string& where,
                 const Check& check) {
  if (kind == "lognormal") {
    d.kind = Distribution::Kind::kLognormal;
    d.median = check(o.real("median"), "median");
    d.sigma = check(o.real_or("sigma", 1.0), "sigma");
  } else {
    d.kind = Distribution::Kind::kExponential;
    d.mean = check(o.real("mean"), "mean");
  }
  d.min = o.has("min") ? check(o.real("min"), "min") : 0;
  d.max = o.has("max") ? check(o.real("max"), "max") : 0;
  if (d.max > 0 && d.max < d.min)
    throw UsageError(fmt::format("{}: max {:g} is below min {:g}", where, d.max, d.min));
  // A centre outside the clip range makes every draw the bound: a typo, not a distribution.
  const double centre = kind == "lognormal" ? d.median : d.mean;
  if (centre < d.min || (d.max > 0 && centre > d.max)) {
    throw UsageError(fmt::format("{}: {} {:g} lies outside min {:g} .. max {}; expected it within them",
                                 where, kind == "lognormal" ? "median" : "mean", centre, d.min,
                                 d.max > 0 ? fmt::format("{:g}", d.max) : std::string("(none)")));
  }
  if (kind == "lognormal") {
    o.reject_unknown_keys({"distribution", "median", "sigma", "min", "max"});
  } else {
    o.reject_unknown_keys({"distribution", "mean", "min", "max"});
  }
}

}  // namespace

Distribution parse_distribution(const YAML::Node& node, const std::string& origin, const std::string& key,
                                bool allow_zero) {
  const std::string where = fmt::format("{}: key '{}'", origin, key);
  const auto check = [&](double v, const char* what) {
    if (!(v > 0) && !(allow_zero && v == 0)) {
      throw UsageError(
          fmt::format("{}: {} must be {} (got {:g})", where, what, allow_zero ? ">= 0" : "> 0", v));
    }
    return v;
  };
  Distribution d;
  if (node.IsScalar()) {
    double v = 0;
    if (!YAML::convert<double>::decode(node, v) || v != v) {
      throw UsageError(
          fmt::format("{} has the wrong type; expected a number or a mapping with 'distribution'", where));
    }
    d.value = check(v, "the value");
    return d;
  }
  if (!node.IsMap()) {
    throw UsageError(
        fmt::format("{} has the wrong type; expected a number or a mapping with 'distribution'", where));
  }
  const YamlObject o(node, fmt::format("{} ({})", origin, key));
  const auto kind = o.str("distribution");
  if (kind == "fixed") {
    d.value = check(o.real("value"), "value");
    o.reject_unknown_keys({"distribution", "value"});
  } else if (kind == "uniform") {
    d.kind = Distribution::Kind::kUniform;
    d.min = check(o.real("min"), "min");
    d.max = check(o.real("max"), "max");
    if (d.max < d.min) throw UsageError(fmt::format("{}: max {:g} is below min {:g}", where, d.max, d.min));
    o.reject_unknown_keys({"distribution", "min", "max"});
  } else if (kind == "lognormal" || kind == "exponential") {
    read_skewed(d, o, kind, where, check);
  } else {
    throw UsageError(fmt::format(
        "{}: unknown distribution '{}'; expected fixed, uniform, lognormal or exponential", where, kind));
  }
  return d;
}

}  // namespace kvb

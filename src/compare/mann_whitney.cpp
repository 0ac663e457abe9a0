#include "compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include "core/percentile.hpp"

namespace kvb {
namespace {

// Exact null distribution of U for sizes m and n (no ties): counts[u] of the C(m+n, m)
// arrangements, from f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
std::vector<double> exact_u_counts(std::size_t m, std::size_t n) {
  const std::size_t max_u = m * n;
  // table[i][j] is the distribution for sizes (i, j), each a vector of max_u + 1 counts.
  std::vector<std::vector<std::vector<double>>> table(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      auto& f = table[i][j];
      f.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[0] = 1;
        continue;
      }
      const auto& drop_a = table[i - 1][j];  // the largest value came from a: it beats all j of b
      const auto& drop_b = table[i][j - 1];
      for (std::size_t u = 0; u < drop_a.size(); ++u) f[u + j] += drop_a[u];
      for (std::size_t u = 0; u < drop_b.size(); ++u) f[u] += drop_b[u];
    }
  }
  auto out = table[m][n];
  out.resize(max_u + 1, 0.0);
  return out;
}

constexpr std::size_t kExactLimit = 40;    // m + n at most, and no ties
constexpr std::size_t kMaxPairSide = 400;  // Hodges-Lehmann: samples kept per side

// Evenly spaced order statistics of `v` (sorted), at most `limit` of them.
std::vector<double> thinned_sorted(std::vector<double> v, std::size_t limit) {
  std::sort(v.begin(), v.end());
  if (v.size() <= limit) return v;
  std::vector<double> out(limit);
  for (std::size_t k = 0; k < limit; ++k) {
    out[k] = v[k * (v.size() - 1) / (limit - 1)];
  }
  return out;
}

}  // namespace

double normal_quantile(double p) {
  // Bisection on the CDF: slow but exact to double precision, and only called once per comparison.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double cdf = 0.5 * std::erfc(-mid / std::sqrt(2.0));
    (cdf < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

RankSumTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  RankSumTest r;
  const std::size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return r;
  struct Item {
    double value;
    bool from_a;
  };
  std::vector<Item> all;
  all.reserve(n1 + n2);
  for (const double v : a) all.push_back({v, true});
  for (const double v : b) all.push_back({v, false});
  std::sort(all.begin(), all.end(), [](const Item& x, const Item& y) { return x.value < y.value; });

  // Ranks 1..N with ties given their average rank.
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].from_a) rank_sum_a += avg_rank;
    }
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  r.u = rank_sum_a - dn1 * (dn1 + 1) / 2;
  const double mean_u = dn1 * dn2 / 2;

  if (!ties && n1 + n2 <= kExactLimit) {
    const auto counts = exact_u_counts(n1, n2);
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const auto tail = static_cast<std::size_t>(std::llround(std::min(r.u, dn1 * dn2 - r.u)));
    double le = 0;
    for (std::size_t u = 0; u <= tail; ++u) le += counts[u];
    r.p_two_sided = std::min(1.0, 2 * le / total);
    r.exact = true;
    return r;
  }
  const double n = dn1 + dn2;
  const double var = dn1 * dn2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return r;  // every value tied: no evidence of a difference
  const double z = std::max(0.0, std::fabs(r.u - mean_u) - 0.5) / std::sqrt(var);
  r.p_two_sided = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

ShiftEstimate hodges_lehmann_shift(const std::vector<double>& a, const std::vector<double>& b,
                                   double confidence) {
  const auto xa = thinned_sorted(a, kMaxPairSide);
  const auto xb = thinned_sorted(b, kMaxPairSide);
  std::vector<double> diffs;
  diffs.reserve(xa.size() * xb.size());
  for (const double vb : xb) {
    for (const double va : xa) diffs.push_back(vb - va);
  }
  std::sort(diffs.begin(), diffs.end());
  const std::size_t n = diffs.size();
  ShiftEstimate e;
  e.shift = percentile_sorted(diffs, 0.5);
  const double m1 = static_cast<double>(xa.size()), m2 = static_cast<double>(xb.size());
  const double z = normal_quantile(1 - (1 - confidence) / 2);
  const double c = std::floor(m1 * m2 / 2 - z * std::sqrt(m1 * m2 * (m1 + m2 + 1) / 12));
  const auto k = static_cast<std::size_t>(std::clamp(c, 0.0, static_cast<double>(n - 1) / 2));
  e.low = diffs[k];
  e.high = diffs[n - 1 - k];
  return e;
}

}  // namespace kvb

#include "calibrate/calibration_fit.hpp"

#include <algorithm>

namespace kvb {

double fit_efficiency(const std::vector<double>& a) {
  double sum = 0, squares = 0;
  for (const double v : a) {
    sum += v;
    squares += v * v;
  }
  return sum > 0 ? squares / sum : 0.0;
}

double roofline_seconds(double flops, double bytes, double peak_flops, double bandwidth, double ec,
                        double em) {
  return std::max(flops / (peak_flops * ec), bytes / (bandwidth * em));
}

}  // namespace kvb

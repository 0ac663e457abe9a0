#pragma once
// Turning timed points into the time model's efficiency factors.
#include <vector>

namespace kvb {

// One efficiency for a regime from its points' efficiencies a_i = work_i / (peak x t_i): the
// value that minimizes the squared relative error of the predicted times (work / (peak x e)
// against t_i), e = sum(a_i^2) / sum(a_i). 0 for no points.
double fit_efficiency(const std::vector<double>& point_efficiencies);

// The roofline's prediction for a point: max(flops / (peak_flops x ec), bytes / (bandwidth x em)).
double roofline_seconds(double flops, double bytes, double peak_flops, double bandwidth, double ec,
                        double em);

}  // namespace kvb

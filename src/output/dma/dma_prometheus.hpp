#pragma once
// `kvbench dma --format prom`: Prometheus text exposition for node-exporter's textfile collector
// (write it with -o to a *.prom file; the write is atomic, as the collector requires).
#include <string>
#include <vector>

#include "dma/dma_record.hpp"

namespace kvb {

std::string dma_prometheus(const std::vector<DmaRecord>& records);

// A label value with backslash, double quote and newline escaped as the exposition format asks.
std::string prometheus_label_value(const std::string& value);

}  // namespace kvb

#pragma once
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "size/sizing_engine.hpp"

namespace kvb::test {

inline ModelSpec model(const std::string& name) {
  std::vector<std::string> w;
  return resolve_model(name, w);
}

inline SizingInputs inputs(const std::string& model_name, const std::string& hw = "h100", int tp = 1) {
  SizingInputs in;
  in.model = model(model_name);
  in.hw = resolve_hardware(hw);
  in.kv.tp = tp;
  return in;
}

// How many times `needle` occurs in `text` (overlapping occurrences counted).
inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace kvb::test

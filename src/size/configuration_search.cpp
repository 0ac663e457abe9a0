#include "size/configuration_search.hpp"

#include <fmt/format.h>

#include <vector>

#include "catalog/weight_format.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "size/sizing_engine.hpp"

namespace kvb {
namespace {

struct Candidate {
  int tp = 1;
  int pp = 1;
  Quantization quantization = Quantization::kNone;
};

// Whether --quantization fp8 changes the weights (a quantized checkpoint keeps its own format).
bool fp8_shrinks(const ModelSpec& m) {
  return weight_format(m.weight_dtype).compute == WeightCompute::k16Bit;
}

std::vector<int> node_tps(const SizingInputs& in) {
  std::vector<int> out;
  for (int tp = 1; tp <= in.hw.gpus_per_node; tp *= 2) {
    if (in.model.num_attention_heads % tp == 0) out.push_back(tp);
  }
  if (out.empty()) out.push_back(1);
  return out;
}

std::vector<Candidate> candidates(const SizingInputs& in) {
  std::vector<Quantization> dtypes{in.quantization};
  if (in.quantization == Quantization::kNone && fp8_shrinks(in.model)) dtypes.push_back(Quantization::kFp8);
  const auto tps = node_tps(in);
  std::vector<Candidate> out;
  for (const auto q : dtypes) {
    for (const int tp : tps) out.push_back({tp, 1, q});
  }
  for (int pp = 2; pp <= kMaxSearchNodes; pp *= 2) {
    for (const auto q : dtypes) out.push_back({tps.back(), pp, q});
  }
  return out;
}

ConfigurationLabel short_label(const Candidate& c, const ModelSpec& m) {
  return {c.tp, c.pp, c.quantization == Quantization::kFp8 && fp8_shrinks(m)};
}

}  // namespace

ConfigurationFlags configuration_flags(const SizingInputs& in) {
  const int gpus = in.kv.tp * in.kv.pp;
  return {.tp = in.kv.tp,
          .pp = in.kv.pp,
          .fp8 = in.quantization == Quantization::kFp8 && fp8_shrinks(in.model),
          .gpus = gpus,
          .nodes = (gpus + in.hw.gpus_per_node - 1) / in.hw.gpus_per_node,
          .hardware = in.hw.name};
}

ConfigurationSearch search_configuration(const SizingInputs& base) {
  ConfigurationSearch out;
  for (const auto& c : candidates(base)) {
    auto in = base;
    in.kv.tp = c.tp;
    in.kv.pp = c.pp;
    in.quantization = c.quantization;
    auto s = size_fit(in);
    if (s.fits) {
      out.tried.found = true;
      out.tried.fits = short_label(c, base.model);
      out.tried.tokens = s.max_model_len;
      out.found = FoundConfiguration{std::move(in), std::move(s)};
      return out;
    }
    out.tried.too_small.push_back(short_label(c, base.model));
  }
  out.tried.tokens = base.max_model_len.value_or(base.model.max_position_embeddings);
  return out;
}

}  // namespace kvb

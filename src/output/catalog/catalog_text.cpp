#include "output/catalog/catalog_text.hpp"

#include <fmt/format.h>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "output/common/text_table.hpp"
#include "size/kv_layout.hpp"

namespace kvb {

namespace {

std::string attention_text(const ModelSpec& m) {
  std::string attention = m.attention == AttentionKind::kMla ? (m.sparse_mla ? "sparse MLA" : "MLA") : "GQA";
  if (m.sliding_layers > 0) attention += fmt::format(" + {} sliding", m.sliding_layers);
  if (m.mamba_layers > 0) attention += fmt::format(" + {} Mamba", m.mamba_layers);
  return attention;
}

}  // namespace

std::string models_table_text() {
  TextTable t({"model", "aliases", "layers", "attention", "params", "bf16 KV B/token (TP1)"});
  for (const auto& m : model_catalog()) {
    t.add_row({m.name, join(m.aliases, ", "), std::to_string(m.num_hidden_layers), attention_text(m),
               m.params_active_b < m.params_total_b
                   ? fmt::format("{:g}B/{:g}B", m.params_total_b, m.params_active_b)
                   : fmt::format("{:g}B", m.params_total_b),
               format_count(reference_kv_bytes_per_token(m))});
  }
  return t.render();
}

std::string hardware_table_text() {
  TextTable t({"hw", "description", "usable GiB", "HBM GB/s", "host link", "BF16 TFLOP/s", "GPUs/node"});
  for (const auto& h : hardware_catalog()) {
    t.add_row({h.name, h.description, fmt::format("{:.2f}", h.usable_gib),
               fmt::format("{:.0f}", h.hbm_bandwidth_gbps), h.link_description(),
               fmt::format("{:.0f}", h.bf16_tflops), std::to_string(h.gpus_per_node)});
  }
  return t.render();
}

}  // namespace kvb

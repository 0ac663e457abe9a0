#include "catalog/model_catalog.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "catalog/embedded_files.hpp"
#include "catalog/hf_config.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/strings.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {
namespace {

const std::vector<std::string> kModelKeys = {
    "name", "aliases", "hf_id", "source", "architecture", "num_hidden_layers", "hidden_size",
    "num_attention_heads", "num_key_value_heads", "head_dim", "attention", "kv_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "sparse_mla", "index_head_dim",
    "sliding_window", "sliding_layers", "mamba_layers", "mamba_num_heads", "mamba_head_dim",
    "ssm_state_size", "mamba_n_groups", "conv_kernel", "mlp_only_layers", "mtp_layers",
    "params_total_b", "params_active_b", "weight_dtype", "dtype", "max_position_embeddings",
    "vocab_size", "tie_word_embeddings", "num_experts", "experts_per_token", "notes"};

int as_int(const YamlObject& y, const char* key, long long fallback) {
  const long long v = y.integer_or(key, fallback);
  if (v < 0 || v > 100'000'000) {
    throw UsageError(fmt::format("{}: key '{}' is {}; expected a non-negative integer", y.origin(), key, v));
  }
  return static_cast<int>(v);
}

}  // namespace

ModelSpec model_from_yaml(const std::string& text, const std::string& origin) {
  const auto y = YamlObject::parse(text, origin);
  y.reject_unknown_keys(kModelKeys);
  ModelSpec m;
  m.name = y.str("name");
  m.aliases = y.str_list_or("aliases");
  m.hf_id = y.str("hf_id");
  m.source = y.str("source");
  m.architecture = y.str_or("architecture", "");
  m.num_hidden_layers = as_int(y, "num_hidden_layers", 0);
  m.hidden_size = as_int(y, "hidden_size", 0);
  m.num_attention_heads = as_int(y, "num_attention_heads", 0);
  m.num_kv_heads = as_int(y, "num_key_value_heads", m.num_attention_heads);
  m.head_dim = as_int(y, "head_dim", m.num_attention_heads > 0 ? m.hidden_size / m.num_attention_heads : 0);
  const auto attention = y.str_or("attention", "gqa");
  if (attention == "gqa" || attention == "mha") {
    m.attention = AttentionKind::kMhaGqa;
  } else if (attention == "mla") {
    m.attention = AttentionKind::kMla;
  } else {
    throw UsageError(fmt::format("{}: key 'attention' is '{}'; expected gqa, mha or mla", origin, attention));
  }
  m.mla.kv_lora_rank = as_int(y, "kv_lora_rank", 0);
  m.mla.qk_rope_head_dim = as_int(y, "qk_rope_head_dim", 0);
  m.mla.qk_nope_head_dim = as_int(y, "qk_nope_head_dim", 0);
  m.mla.v_head_dim = as_int(y, "v_head_dim", 0);
  m.sparse_mla = y.boolean_or("sparse_mla", false);
  m.indexer_head_dim = as_int(y, "index_head_dim", 0);
  m.sliding_window = as_int(y, "sliding_window", 0);
  m.sliding_layers = as_int(y, "sliding_layers", 0);
  m.mamba_layers = as_int(y, "mamba_layers", 0);
  m.mamba.num_heads = as_int(y, "mamba_num_heads", 0);
  m.mamba.head_dim = as_int(y, "mamba_head_dim", 0);
  m.mamba.state_size = as_int(y, "ssm_state_size", 0);
  m.mamba.n_groups = as_int(y, "mamba_n_groups", 1);
  m.mamba.conv_kernel = as_int(y, "conv_kernel", 4);
  m.mlp_only_layers = as_int(y, "mlp_only_layers", 0);
  m.mtp_layers = as_int(y, "mtp_layers", 0);
  m.params_total_b = y.real("params_total_b");
  m.params_active_b = y.real_or("params_active_b", m.params_total_b);
  m.weight_dtype = y.str_or("weight_dtype", "bf16");
  m.dtype = y.str_or("dtype", "bf16");
  m.max_position_embeddings = y.integer("max_position_embeddings");
  m.vocab_size = y.integer_or("vocab_size", 0);
  m.tie_word_embeddings = y.boolean_or("tie_word_embeddings", false);
  m.num_experts = as_int(y, "num_experts", 0);
  m.experts_per_token = as_int(y, "experts_per_token", 0);
  m.notes = y.str_list_or("notes");
  validate_model(m, origin);
  return m;
}

const std::vector<ModelSpec>& model_catalog() {
  static const std::vector<ModelSpec> catalog = [] {
    std::vector<ModelSpec> out;
    for (const auto& e : catalog_entries("models")) out.push_back(model_from_yaml(std::string(e.content), e.origin));
    return out;
  }();
  return catalog;
}

ModelSpec resolve_model(const std::string& name_or_path, std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               name_or_path.ends_with(".json") || name_or_path.ends_with(".yaml");
  if (looks_like_path) {
    std::error_code ec;
    if (!fs::is_regular_file(name_or_path, ec)) {
      throw UsageError(fmt::format("--model '{}': no such file; expected a catalog name (see `kvbench size "
                                   "--list-models`) or a path to a config.json",
                                   name_or_path));
    }
    const auto text = read_text_file(name_or_path, "--model");
    if (name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml")) {
      return model_from_yaml(text, name_or_path);
    }
    return model_from_hf_config(text, name_or_path, warnings);
  }
  const std::string wanted = to_lower(name_or_path);
  std::vector<std::string> names;
  for (const auto& m : model_catalog()) {
    if (to_lower(m.name) == wanted) return m;
    for (const auto& a : m.aliases) {
      if (to_lower(a) == wanted) return m;
    }
    names.push_back(m.name);
    names.insert(names.end(), m.aliases.begin(), m.aliases.end());
  }
  throw UsageError(fmt::format("--model '{}': unknown model; closest: {} (all: `kvbench size --list-models`, "
                               "or give a path to a config.json)",
                               name_or_path, join(closest_names(name_or_path, names, 4), ", ")));
}

}  // namespace kvb

#include "catalog/model_catalog.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "catalog/embedded_files.hpp"
#include "catalog/hf_config.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/strings.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {
namespace {

const std::vector<std::string> kModelKeys = {"name",
                                             "aliases",
                                             "hf_id",
                                             "source",
                                             "architecture",
                                             "num_hidden_layers",
                                             "hidden_size",
                                             "num_attention_heads",
                                             "num_key_value_heads",
                                             "head_dim",
                                             "attention",
                                             "kv_lora_rank",
                                             "qk_rope_head_dim",
                                             "qk_nope_head_dim",
                                             "v_head_dim",
                                             "sparse_mla",
                                             "index_head_dim",
                                             "sliding_window",
                                             "sliding_layers",
                                             "mamba_layers",
                                             "mamba_num_heads",
                                             "mamba_head_dim",
                                             "ssm_state_size",
                                             "mamba_n_groups",
                                             "conv_kernel",
                                             "mlp_only_layers",
                                             "mtp_layers",
                                             "params_total_b",
                                             "params_active_b",
                                             "weight_dtype",
                                             "dtype",
                                             "max_position_embeddings",
                                             "vocab_size",
                                             "intermediate_size",
                                             "tie_word_embeddings",
                                             "num_experts",
                                             "experts_per_token",
                                             "notes",
                                             "context_extension"};

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
  m.intermediate_size = as_int(y, "intermediate_size", 0);
  m.tie_word_embeddings = y.boolean_or("tie_word_embeddings", false);
  m.num_experts = as_int(y, "num_experts", 0);
  m.experts_per_token = as_int(y, "experts_per_token", 0);
  m.notes = y.str_list_or("notes");
  m.context_extension = y.str_or("context_extension", "");
  validate_model(m, origin);
  return m;
}

const std::vector<ModelSpec>& model_catalog() {
  static const std::vector<ModelSpec> catalog = [] {
    std::vector<ModelSpec> out;
    for (const auto& e : catalog_entries("models"))
      out.push_back(model_from_yaml(std::string(e.content), e.origin));
    return out;
  }();
  return catalog;
}

namespace {

// A Hugging Face id ("org/name") downloaded to the local hub cache: $HF_HUB_CACHE, else
// $HF_HOME/hub, else ~/.cache/huggingface/hub, holding models--org--name/snapshots/<rev>/config.json.
// Never the network. Empty when it is not there.
std::string hub_cache_config(const std::string& id) {
  namespace fs = std::filesystem;
  const auto slash = id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == id.size() ||
      id.find('/', slash + 1) != std::string::npos) {
    return "";
  }
  fs::path hub;
  if (const char* c = std::getenv("HF_HUB_CACHE"); c != nullptr && *c != 0) {
    hub = c;
  } else if (const char* h = std::getenv("HF_HOME"); h != nullptr && *h != 0) {
    hub = fs::path(h) / "hub";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != 0) {
    hub = fs::path(home) / ".cache" / "huggingface" / "hub";
  } else {
    return "";
  }
  const auto snapshots = hub / ("models--" + id.substr(0, slash) + "--" + id.substr(slash + 1)) / "snapshots";
  std::error_code ec;
  if (!fs::is_directory(snapshots, ec)) return "";
  // The newest snapshot that has a config.json.
  fs::path best;
  fs::file_time_type best_time{};
  for (const auto& entry : fs::directory_iterator(snapshots, ec)) {
    const auto config = entry.path() / "config.json";
    if (!fs::is_regular_file(config, ec)) continue;
    const auto t = fs::last_write_time(config, ec);
    if (best.empty() || t > best_time) {
      best = config;
      best_time = t;
    }
  }
  return best.string();
}

ModelSpec from_config_file(const std::string& path, const std::string& given,
                           std::vector<std::string>& warnings) {
  auto m = model_from_hf_config(read_text_file(path, "--model"), path, warnings);
  m.hf_id = given;  // vllm serve takes the directory or the id the user gave
  return m;
}

}  // namespace

ModelSpec resolve_model(const std::string& name_or_path, std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  std::error_code dir_ec;
  if (fs::is_directory(name_or_path, dir_ec)) {
    // A model directory as downloaded (what vllm serve also takes).
    const auto config = fs::path(name_or_path) / "config.json";
    if (!fs::is_regular_file(config, dir_ec)) {
      throw UsageError(
          fmt::format("--model '{}': a directory without a config.json; expected a model directory as "
                      "downloaded, a config.json, a catalog name or a Hugging Face id",
                      name_or_path));
    }
    return from_config_file(config.string(), name_or_path, warnings);
  }
  if (const auto cached = hub_cache_config(name_or_path); !cached.empty()) {
    return from_config_file(cached, name_or_path, warnings);
  }
  // A catalog model's Hugging Face id, not downloaded here: the catalog's figures.
  for (const auto& m : model_catalog()) {
    if (!m.hf_id.empty() && to_lower(m.hf_id) == to_lower(name_or_path)) return m;
  }
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               name_or_path.ends_with(".json") || name_or_path.ends_with(".yaml");
  if (looks_like_path) {
    std::error_code ec;
    if (fs::exists(name_or_path, ec) && !fs::is_regular_file(name_or_path, ec)) {
      throw UsageError(fmt::format(
          "--model '{}': not a regular file (a device, a FIFO or a socket); expected a config.json, a "
          "model directory, a catalog name or a Hugging Face id",
          name_or_path));
    }
    if (!fs::is_regular_file(name_or_path, ec)) {
      throw UsageError(
          fmt::format("--model '{}': no such file, model directory or Hugging Face id in the local hub "
                      "cache; expected a catalog name (see `kvbench size --list-models`), a model "
                      "directory, a path to a config.json, or an id downloaded to ~/.cache/huggingface",
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
  throw UsageError(
      fmt::format("--model '{}': unknown model; closest: {} (all: `kvbench size --list-models`, "
                  "or give a path to a config.json)",
                  name_or_path, join(closest_names(name_or_path, names, 4), ", ")));
}

namespace {

const ModelSpec* catalog_entry(const std::string& name) {
  const std::string wanted = to_lower(name);
  for (const auto& m : model_catalog()) {
    if (to_lower(m.name) == wanted || (!m.hf_id.empty() && to_lower(m.hf_id) == wanted)) return &m;
    for (const auto& a : m.aliases)
      if (to_lower(a) == wanted) return &m;
  }
  return nullptr;
}

}  // namespace

const ModelSpec* find_catalog_model(const std::string& name) {
  if (const auto* m = catalog_entry(name)) return m;
  std::string path = name;
  while (!path.empty() && path.back() == '/') path.pop_back();
  const auto last = path.rfind('/');
  if (last == std::string::npos) return nullptr;
  const auto before = path.rfind('/', last - 1);
  const auto two = path.substr(before == std::string::npos || last == 0 ? 0 : before + 1);
  if (const auto* m = catalog_entry(two)) return m;
  return catalog_entry(path.substr(last + 1));
}

}  // namespace kvb

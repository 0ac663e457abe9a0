#include "catalog/hf_config.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "catalog/hf_config_keys.hpp"
#include "catalog/hf_quantization.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"

namespace kvb {
namespace {

using Json = nlohmann::json;

// Reads fields while remembering which ones were looked at, so the rest can be reported.
class ConfigFields {
 public:
  ConfigFields(const Json& j, std::string origin) : j_(j), origin_(std::move(origin)) {}

  bool has(const char* key) {
    seen_.insert(key);
    return j_.contains(key) && !j_.at(key).is_null();
  }
  long long integer(const char* key, long long fallback) {
    if (!has(key)) return fallback;
    const auto& v = j_.at(key);
    if (!v.is_number_integer() || v.get<long long>() < 0) {
      throw UsageError(
          fmt::format("{}: field '{}' is {}; expected a non-negative integer", origin_, key, v.dump()));
    }
    return v.get<long long>();
  }
  int small_int(const char* key, int fallback) {
    const long long v = integer(key, fallback);
    if (v > 100'000'000) {
      throw UsageError(fmt::format("{}: field '{}' is {}; expected a plausible size", origin_, key, v));
    }
    return static_cast<int>(v);
  }
  int required_int(const char* key) {
    if (!has(key)) {
      throw UsageError(
          fmt::format("{}: missing field '{}', which KV sizing needs; is this a model's "
                      "config.json?",
                      origin_, key));
    }
    return small_int(key, 0);
  }
  std::string string(const char* key, const std::string& fallback) {
    if (!has(key)) return fallback;
    const auto& v = j_.at(key);
    if (!v.is_string())
      throw UsageError(fmt::format("{}: field '{}' is {}; expected a string", origin_, key, v.dump()));
    return v.get<std::string>();
  }
  bool boolean(const char* key, bool fallback) {
    if (!has(key)) return fallback;
    const auto& v = j_.at(key);
    if (!v.is_boolean())
      throw UsageError(fmt::format("{}: field '{}' is {}; expected true or false", origin_, key, v.dump()));
    return v.get<bool>();
  }
  const Json& raw(const char* key) {
    seen_.insert(key);
    return j_.at(key);
  }
  void mark(const char* key) { seen_.insert(key); }

  // Keys never read whose names suggest they could change KV size or layer structure.
  std::vector<std::string> uninterpreted() const {
    static const std::vector<std::string> hints = {
        "attn",   "attention", "kv",    "window", "head",   "layer", "mamba", "ssm",
        "expert", "lora",      "index", "cache",  "linear", "state", "conv",  "group"};
    std::vector<std::string> out;
    for (const auto& [key, value] : j_.items()) {
      if (seen_.count(key) != 0 || config_keys_without_kv_effect().count(key) != 0) continue;
      const auto lk = to_lower(key);
      for (const auto& h : hints) {
        if (lk.find(h) != std::string::npos) {
          out.push_back(key);
          break;
        }
      }
    }
    return out;
  }

 private:
  const Json& j_;
  std::string origin_;
  std::set<std::string> seen_;
};

// The weights' format: quantization_config when the checkpoint has one (catalog/hf_quantization),
// else torch_dtype.
std::string weight_dtype_from(ConfigFields& f, const Json& top, const std::string& dtype,
                              const std::string& origin, std::vector<std::string>& warnings) {
  f.mark("quantization_config");
  if (!top.contains("quantization_config") || top.at("quantization_config").is_null()) return dtype;
  return weight_dtype_from_quantization(top.at("quantization_config"), origin, warnings);
}

Json parse_config_json(const std::string& json_text, const std::string& origin) {
  Json top;
  try {
    top = parse_json_without_repeated_keys(json_text, origin);
  } catch (const Json::parse_error& e) {
    throw UsageError(fmt::format(
        "{}: malformed or truncated JSON (byte {}); expected a Hugging Face config.json", origin, e.byte));
  }
  if (!top.is_object()) throw UsageError(fmt::format("{}: expected a JSON object (a config.json)", origin));
  return top;
}

// The architecture and the HF id, which only the top level carries.
void read_identity(const Json& top, ConfigFields& f, ModelSpec& m) {
  if (top.contains("architectures") && top.at("architectures").is_array() &&
      !top.at("architectures").empty() && top.at("architectures")[0].is_string()) {
    m.architecture = top.at("architectures")[0].get<std::string>();
  }
  if (top.contains("_name_or_path") && top.at("_name_or_path").is_string()) {
    m.hf_id = top.at("_name_or_path").get<std::string>();
  }
  if (m.hf_id.empty()) m.hf_id = "<path-or-hf-id-of-this-model>";
  f.mark("architectures");
  f.mark("_name_or_path");
}

// Layers, heads, context and dtypes: what every decoder has.
void read_shape(const Json& top, bool nested, ConfigFields& f, ModelSpec& m, const std::string& origin) {
  m.num_hidden_layers = f.required_int("num_hidden_layers");
  m.hidden_size = f.required_int("hidden_size");
  m.num_attention_heads = f.required_int("num_attention_heads");
  m.num_kv_heads = f.small_int("num_key_value_heads", m.num_attention_heads);
  m.head_dim = f.small_int("head_dim", m.num_attention_heads > 0 ? m.hidden_size / m.num_attention_heads : 0);
  if (!f.has("max_position_embeddings")) {
    throw UsageError(
        fmt::format("{}: missing field 'max_position_embeddings'; pass a config.json that has it", origin));
  }
  m.max_position_embeddings = f.integer("max_position_embeddings", 0);
  m.vocab_size = f.integer("vocab_size", 0);
  const char* field = f.has("torch_dtype") || !f.has("dtype") ? "torch_dtype" : "dtype";
  auto given = f.string("torch_dtype", f.string("dtype", "bfloat16"));
  const bool from_top =
      nested && given == "bfloat16" && top.contains("torch_dtype") && top.at("torch_dtype").is_string();
  if (from_top) given = top.at("torch_dtype").get<std::string>();
  m.dtype = checkpoint_dtype(given, fmt::format("{}: field '{}'", origin, from_top ? "torch_dtype" : field));
}

// MLA (DeepSeek V2/V3, Kimi K2, GLM-5): a latent plus a RoPE key per token.
void read_mla(ConfigFields& f, ModelSpec& m) {
  if (!f.has("kv_lora_rank") || f.integer("kv_lora_rank", 0) <= 0) return;
  m.attention = AttentionKind::kMla;
  m.mla.kv_lora_rank = f.small_int("kv_lora_rank", 0);
  m.mla.qk_rope_head_dim = f.small_int("qk_rope_head_dim", 64);
  m.mla.qk_nope_head_dim = f.small_int("qk_nope_head_dim", 128);
  m.mla.v_head_dim = f.small_int("v_head_dim", 128);
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  if (f.has("index_head_dim") && f.integer("index_head_dim", 0) > 0) {
    m.sparse_mla = true;
    m.indexer_head_dim = f.small_int("index_head_dim", 0);
    f.mark("index_n_heads");
    f.mark("index_topk");
  }
}

// layer_types (gpt-oss, Gemma-style): sliding and full attention layers.
void read_layer_types(ConfigFields& f, ModelSpec& m, const std::string& origin,
                      std::vector<std::string>& warnings) {
  if (!f.has("layer_types")) return;
  const auto& types = f.raw("layer_types");
  if (!types.is_array())
    throw UsageError(fmt::format("{}: field 'layer_types' must be a list of strings", origin));
  if (types.size() != static_cast<std::size_t>(m.num_hidden_layers))  // one kind per layer
    throw UsageError(fmt::format("{}: field 'layer_types' has {} entries but num_hidden_layers is {}", origin,
                                 types.size(), m.num_hidden_layers));
  std::set<std::string> unknown;
  for (const auto& t : types) {
    const auto s = t.is_string() ? t.get<std::string>() : t.dump();
    if (s == "sliding_attention")
      ++m.sliding_layers;
    else if (s == "full_attention")
      continue;
    else
      unknown.insert(s);
  }
  if (!unknown.empty()) {
    warnings.push_back(
        fmt::format("{}: layer_types has kinds kvbench does not size ({}); they are counted as "
                    "full attention, which overstates their KV",
                    origin, join(std::vector<std::string>(unknown.begin(), unknown.end()), ", ")));
  }
}

// A hybrid pattern string (Nemotron-H): Mamba, attention, MLP and MoE layers. Returns the MoE
// layers it names, or -1 when the config has no pattern.
int read_hybrid_pattern(ConfigFields& f, ModelSpec& m, const std::string& origin) {
  if (!f.has("hybrid_override_pattern")) return -1;
  const auto pattern = f.string("hybrid_override_pattern", "");
  int moe = 0;
  for (const char c : pattern) {
    if (c == 'M') {
      ++m.mamba_layers;
    } else if (c == '-' || c == 'E') {
      ++m.mlp_only_layers;
      if (c == 'E') ++moe;
    } else if (c != '*') {
      throw UsageError(
          fmt::format("{}: hybrid_override_pattern has '{}'; expected only M, *, - and E", origin, c));
    }
  }
  if (static_cast<int>(pattern.size()) != m.num_hidden_layers) {
    throw UsageError(fmt::format("{}: hybrid_override_pattern has {} layers but num_hidden_layers is {}",
                                 origin, pattern.size(), m.num_hidden_layers));
  }
  m.mamba.num_heads = f.small_int("mamba_num_heads", 0);
  m.mamba.head_dim = f.small_int("mamba_head_dim", 0);
  m.mamba.state_size = f.small_int("ssm_state_size", 0);
  m.mamba.n_groups = f.small_int("n_groups", 1);
  m.mamba.conv_kernel = f.small_int("conv_kernel", 4);
  return moe;
}

void read_sliding_window(ConfigFields& f, ModelSpec& m) {
  const bool use_sliding = !f.has("use_sliding_window") || f.raw("use_sliding_window") == true;
  if (f.has("sliding_window") && f.raw("sliding_window").is_number_integer()) {
    const int w = f.small_int("sliding_window", 0);
    if (m.sliding_layers > 0) {
      m.sliding_window = w;
    } else if (use_sliding && w > 0 && w < m.max_position_embeddings && !f.has("layer_types")) {
      // Every layer slides (Mistral-7B-v0.1 style).
      m.sliding_layers = m.num_hidden_layers - m.mamba_layers - m.mlp_only_layers;
      m.sliding_window = w;
    }
  }
  f.mark("max_window_layers");
}

// Attention parameters of one layer: MLA's low-rank projections, or GQA's q, k, v and o.
double attention_params(const ModelSpec& m, int q_lora_rank) {
  const double hidden = m.hidden_size;
  const double heads = m.num_attention_heads;
  if (m.attention != AttentionKind::kMla)
    return hidden * heads * m.head_dim * 2 + 2 * hidden * m.num_kv_heads * m.head_dim;
  const double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  const double q = q_lora_rank > 0 ? hidden * q_lora_rank + q_lora_rank * heads * qk : hidden * heads * qk;
  const double kv = hidden * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) +
                    m.mla.kv_lora_rank * heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim);
  return q + kv + heads * m.mla.v_head_dim * hidden;
}

// Total and active parameters estimated from the shapes (no checkpoint is read).
void estimate_params(ConfigFields& f, ModelSpec& m, int q_lora_rank, int moe_layers_from_pattern) {
  m.num_experts =
      f.small_int("n_routed_experts", f.small_int("num_experts", f.small_int("num_local_experts", 0)));
  m.experts_per_token = f.small_int("num_experts_per_tok", f.small_int("experts_per_token", 0));
  const int shared = f.small_int("n_shared_experts", 0);
  const int first_dense = f.small_int("first_k_dense_replace", 0);
  const double hidden = m.hidden_size;
  const double inter = f.small_int("intermediate_size", 4 * m.hidden_size);
  m.intermediate_size = f.small_int("intermediate_size", 0);
  const double moe_inter = f.small_int("moe_intermediate_size", static_cast<int>(inter));
  const bool tied = f.boolean("tie_word_embeddings", false);
  m.tie_word_embeddings = tied;
  const double attn_params = attention_params(m, q_lora_rank);
  const double dense_mlp = 3 * hidden * inter;
  const double expert = 3 * hidden * moe_inter;
  const int attn_layers = m.full_attention_layers() + m.sliding_layers;
  int moe_layers = 0;
  int dense_layers = 0;
  if (moe_layers_from_pattern >= 0) {
    moe_layers = moe_layers_from_pattern;
    dense_layers = m.mlp_only_layers - moe_layers;
  } else if (m.num_experts > 0) {
    moe_layers = m.num_hidden_layers - first_dense;
    dense_layers = first_dense;
  } else {
    dense_layers = m.num_hidden_layers;
  }
  const double mamba_inter = static_cast<double>(m.mamba.num_heads) * m.mamba.head_dim;
  const double mamba_params =
      hidden * (2 * mamba_inter + 2.0 * m.mamba.n_groups * m.mamba.state_size + m.mamba.num_heads) +
      mamba_inter * hidden;
  const double embed = static_cast<double>(m.vocab_size) * hidden * (tied ? 1 : 2);
  const double common =
      embed + attn_layers * attn_params + m.mamba_layers * mamba_params + dense_layers * dense_mlp;
  const double total = common + moe_layers * (m.num_experts + shared) * expert;
  // Active parameters do work per token: the input embedding is a lookup, not a matmul.
  const double input_embed = static_cast<double>(m.vocab_size) * hidden;
  const double active =
      common - (tied ? 0 : input_embed) + moe_layers * (m.experts_per_token + shared) * expert;
  m.params_total_b = total / 1e9;
  m.params_active_b = active / 1e9;
}

ModelSpec read_hf_config(const std::string& json_text, const std::string& origin,
                         std::vector<std::string>& warnings) {
  const Json top = parse_config_json(json_text, origin);
  // Vision-language models keep the language model under text_config.
  const bool nested = top.contains("text_config") && top.at("text_config").is_object();
  const Json& j = nested ? top.at("text_config") : top;
  ConfigFields f(j, origin);
  ModelSpec m;
  m.name = printable_path(origin);  // the model's name in output: the path, printable
  m.source = fmt::format("{} (parameter counts estimated from the shapes)", origin);
  read_identity(top, f, m);
  read_shape(top, nested, f, m, origin);
  m.weight_dtype = weight_dtype_from(f, top, m.dtype, origin, warnings);
  read_mla(f, m);
  const int q_lora_rank = f.small_int("q_lora_rank", 0);
  read_layer_types(f, m, origin, warnings);
  const int moe_layers_from_pattern = read_hybrid_pattern(f, m, origin);
  read_sliding_window(f, m);
  m.mtp_layers = f.small_int("num_nextn_predict_layers", 0);
  estimate_params(f, m, q_lora_rank, moe_layers_from_pattern);
  for (const char* k : {"intermediate_size", "moe_intermediate_size", "first_k_dense_replace",
                        "n_shared_experts", "num_experts_per_tok", "num_attention_heads"}) {
    f.mark(k);
  }
  const auto leftovers = f.uninterpreted();
  if (!leftovers.empty()) {
    warnings.push_back(fmt::format("{}: fields kvbench does not interpret, which may change KV size: {}",
                                   origin, join(leftovers, ", ")));
  }
  validate_model(m, origin);
  return m;
}

}  // namespace

ModelSpec model_from_hf_config(const std::string& json_text, const std::string& origin,
                               std::vector<std::string>& warnings) {
  // Each field is type-checked where it is read; this net catches a type nobody expected, so a
  // strange config.json is still exit 2 naming the file, never a JSON exception.
  try {
    return read_hf_config(json_text, origin, warnings);
  } catch (const Json::exception& e) {
    throw UsageError(fmt::format(
        "{}: a field has an unexpected type ({}); expected a Hugging Face config.json", origin, e.what()));
  }
}

}  // namespace kvb

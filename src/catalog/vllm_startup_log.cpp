#include "catalog/vllm_startup_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "catalog/python_literal.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"

namespace kvb {
namespace {

// vLLM's engine arguments (vllm/engine/arg_utils.py, EngineArgs) that are kvbench server keys.
struct ArgKey {
  const char* arg;
  const char* key;
};
constexpr ArgKey kArgKeys[] = {
    {"tensor_parallel_size", "tensor-parallel-size"},
    {"pipeline_parallel_size", "pipeline-parallel-size"},
    {"max_model_len", "max-model-len"},
    {"block_size", "block-size"},
    {"kv_cache_dtype", "kv-cache-dtype"},
    {"gpu_memory_utilization", "gpu-memory-utilization"},
    {"kv_cache_memory_bytes", "kv-cache-memory"},
    {"kv_offloading_size", "kv-offloading-size"},
    {"kv_offloading_backend", "kv-offloading-backend"},
    {"max_num_batched_tokens", "max-num-batched-tokens"},
    {"max_num_seqs", "max-num-seqs"},
};
// Arguments that change what a server holds and that the log cannot give kvbench as a key.
constexpr const char* kNotTaken[] = {"speculative_config", "kv_transfer_config", "data_parallel_size",
                                     "num_gpu_blocks_override", "cpu_offload_gb"};

// Where a key came from: the args the operator gave win over the engine's config line, which wins
// over the other lines (they should agree; the args are what was asked).
enum Priority { kFromLine = 0, kFromConfig = 1, kFromArgs = 2 };

struct Reader {
  VllmStartupLog log;
  std::map<std::string, int> priority;
  int recognised = 0;

  void set_key(const std::string& key, const std::string& text, int p) {
    const auto it = priority.find(key);
    if (it != priority.end() && it->second > p) return;
    priority[key] = p;
    log.server_keys[key] = text;
  }
  void add_model(const std::string& m) {
    if (!m.empty() && std::find(log.models.begin(), log.models.end(), m) == log.models.end())
      log.models.push_back(m);
  }
};

std::string literal_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return v.dump(-1, ' ', false,
                nlohmann::json::error_handler_t::replace);  // bytes a log may hold that are not UTF-8
}

// Digits after `marker`, thousands separators allowed ("42,656"); none when the marker is absent.
std::optional<std::int64_t> count_after(std::string_view line, std::string_view marker) {
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string digits;
  for (auto i = at + marker.size(); i < line.size() && digits.size() < 19; ++i) {
    if (std::isdigit(static_cast<unsigned char>(line[i])) != 0) {
      digits.push_back(line[i]);
    } else if (line[i] != ',' || digits.empty()) {
      break;
    }
  }
  std::int64_t n = 0;
  if (digits.empty() || std::from_chars(digits.data(), digits.data() + digits.size(), n).ec != std::errc())
    return std::nullopt;
  return n;
}

std::optional<double> decimal_after(std::string_view line, std::string_view marker) {
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const auto* begin = line.data() + at + marker.size();
  double d = 0;
  const auto r = std::from_chars(begin, line.data() + line.size(), d);
  if (r.ec != std::errc() || !std::isfinite(d)) return std::nullopt;
  return d;
}

// The word after `marker`, up to a space, a comma, a quote or a closing bracket.
std::string word_after(std::string_view line, std::string_view marker) {
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return "";
  auto end = at + marker.size();
  while (end < line.size() && std::string_view(" ,')\"\r").find(line[end]) == std::string_view::npos) ++end;
  return std::string(line.substr(at + marker.size(), end - at - marker.size()));
}

void read_args(Reader& r, std::string_view rest, const std::string& where) {
  const auto args = parse_python_literal(rest, where + ": non-default args");
  if (!args.is_object()) throw UsageError(fmt::format("{}: non-default args: expected a dict", where));
  r.log.args = args;
  for (const auto& [arg, key] : kArgKeys)
    if (args.contains(arg) && !args[arg].is_null()) r.set_key(key, literal_text(args[arg]), kFromArgs);
  if (args.contains("quantization") && args["quantization"].is_string()) {
    const auto q = args["quantization"].get<std::string>();
    if (q == "fp8") {
      r.set_key("quantization", q, kFromArgs);
    } else {
      r.log.not_taken.push_back("quantization: " + q);
    }
  }
  const auto hybrid_off = args.find("disable_hybrid_kv_cache_manager");
  if (hybrid_off != args.end() && hybrid_off->is_boolean() && hybrid_off->get<bool>())
    r.set_key("hybrid-kv-cache-manager", "true", kFromArgs);
  for (const char* arg : kNotTaken) {
    if (!args.contains(arg) || args[arg].is_null()) continue;
    auto text = literal_text(args[arg]);
    if (text.size() > 80) text.replace(77, std::string::npos, "...");  // a dataclass's repr runs long
    r.log.not_taken.push_back(fmt::format("{}: {}", arg, text));
  }
  for (const char* arg : {"model", "hf_config_path"})
    if (args.contains(arg) && args[arg].is_string()) r.add_model(args[arg].get<std::string>());
  if (args.contains("served_model_name")) {
    const auto& s = args["served_model_name"];
    if (s.is_string()) r.add_model(s.get<std::string>());
    if (s.is_array())
      for (const auto& n : s)
        if (n.is_string()) r.add_model(n.get<std::string>());
  }
}

// "Initializing a V1 LLM engine (v0.20.1) with config: model='M', ..., tensor_parallel_size=2, ...".
void read_engine_config(Reader& r, std::string_view line) {
  const auto release = word_after(line, "LLM engine (v");
  if (!release.empty()) r.log.release = release;
  const auto model = line.find("with config: model='");
  if (model != std::string_view::npos) {
    const auto begin = model + std::string_view("with config: model='").size();
    const auto end = line.find('\'', begin);
    if (end != std::string_view::npos) r.add_model(std::string(line.substr(begin, end - begin)));
  }
  const std::pair<const char*, const char*> keys[] = {{", tensor_parallel_size=", "tensor-parallel-size"},
                                                      {", pipeline_parallel_size=", "pipeline-parallel-size"},
                                                      {", max_seq_len=", "max-model-len"},
                                                      {", kv_cache_dtype=", "kv-cache-dtype"}};
  for (const auto& [marker, key] : keys) {
    const auto text = word_after(line, marker);
    if (!text.empty()) r.set_key(key, text, kFromConfig);
  }
}

void add_pool_report(VllmStartupLog& log, std::optional<std::int64_t>& kept, std::int64_t n) {
  if (kept && *kept != n) log.pool_reports_agree = false;
  kept = kept ? std::min(*kept, n) : n;
  ++log.pool_reports;
}

// The pool's lines. True when the line was one.
bool read_pool_line(Reader& r, std::string_view line) {
  auto& log = r.log;
  if (const auto gib = decimal_after(line, "Available KV cache memory: "))
    return log.available_kv_gib = *gib, true;
  if (const auto n = count_after(line, "GPU KV cache size: "))
    return add_pool_report(log, log.gpu_kv_tokens, *n), true;
  if (const auto n = count_after(line, "# GPU blocks: "))
    return add_pool_report(log, log.gpu_blocks, *n), true;
  if (const auto n = count_after(line, "num_gpu_blocks is: "))
    return add_pool_report(log, log.gpu_blocks, *n), true;
  if (const auto t = count_after(line, "Maximum concurrency for ")) {
    log.concurrency_tokens = *t;
    const auto colon = line.find("tokens per request: ");
    if (colon != std::string_view::npos)
      log.concurrency = decimal_after(line.substr(colon), "tokens per request: ");
    r.set_key("max-model-len", std::to_string(*t), kFromLine);
    return true;
  }
  return false;
}

// A line vLLM's logger wrote: "INFO 06-01 09:22:30 [kv_cache_utils.py:1733] ..." (V1) or
// "INFO 03-05 19:36:10 kv_cache_utils.py:527] ..." (V0), whatever precedes it. A document that
// quotes the figures in prose is not a log.
bool is_logger_line(std::string_view line) {
  const auto level = line.find("INFO ");
  return level != std::string_view::npos && line.find(".py:", level) != std::string_view::npos;
}

bool read_line(Reader& r, std::string_view line, const std::string& where) {
  if (!is_logger_line(line)) return false;
  if (read_pool_line(r, line)) return true;
  if (const auto at = line.find("non-default args: "); at != std::string_view::npos) {
    read_args(r, line.substr(at + std::string_view("non-default args: ").size()), where);
    return true;
  }
  if (line.find("LLM engine (v") != std::string_view::npos) return read_engine_config(r, line), true;
  if (const auto v = word_after(line, "vLLM API server version "); !v.empty()) return r.log.release = v, true;
  if (line.find("\xe2\x96\x88") != std::string_view::npos &&
      line.find(" version ") != std::string_view::npos) {
    if (r.log.release.empty()) r.log.release = word_after(line, " version ");
    return true;
  }
  if (const auto n = count_after(line, "Using max model len "))
    return r.set_key("max-model-len", std::to_string(*n), kFromLine), true;
  if (const auto n = count_after(line, "Chunked prefill is enabled with max_num_batched_tokens=")) {
    r.set_key("max-num-batched-tokens", std::to_string(*n), kFromLine);
    return true;
  }
  return false;
}

}  // namespace

VllmStartupLog parse_vllm_startup_log(std::string_view text, const std::string& name) {
  Reader r;
  std::size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto line = text.substr(start, end - start);
    ++number;
    start = end + 1;
    if (line.size() > kMaxVllmLogLine) {
      ++r.log.lines_skipped;
      continue;
    }
    if (read_line(r, line, fmt::format("{}:{}", name, number))) ++r.recognised;
  }
  if (r.recognised == 0) {
    throw UsageError(fmt::format(
        "{}: not a vLLM start-up log (no line names vLLM's release, its non-default args or its KV cache); "
        "expected the log `vllm serve` writes as it starts",
        name));
  }
  return r.log;
}

VllmStartupLog read_vllm_startup_log(const std::string& path) {
  const auto name = fmt::format("--from-vllm-log '{}'", printable_path(path));
  return parse_vllm_startup_log(read_text_file(path, "--from-vllm-log", kMaxVllmLogBytes), name);
}

}  // namespace kvb

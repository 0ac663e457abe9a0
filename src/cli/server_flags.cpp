#include "cli/server_flags.hpp"

#include <fmt/format.h>

#include "catalog/hardware_spec.hpp"
#include "core/strings.hpp"
#include "server/server_spec.hpp"
#include "sim/server_fields.hpp"

namespace kvb {
namespace {

// --model and --hw as one command means them: their names, help and defaults ("" where none).
struct ModelFlagText {
  std::string model_names, model_help, model_default;
  std::string hw_names, hw_help, hw_default;
};

ModelFlagText model_flag_text(ModelUse use) {
  const std::string deflt = kDefaultHardware;
  switch (use) {
    case ModelUse::kSizeTable:
      return {"--model,-m",
              "catalog name or alias (comma-separated for a table), or a path to a Hugging Face config.json",
              "",
              "--hw",
              "hardware: " + join(hardware_names(), ", ") + " (comma list ok)",
              deflt};
    case ModelUse::kScenarioOverride:
      return {"--model",
              "override the scenario's model (catalog name, alias or config.json)",
              "",
              "--hw,--hardware",
              fmt::format("override the scenario's GPU (a scenario without one: {})", deflt),
              ""};
    case ModelUse::kOneModel:
      return {"--model,-m",
              "model whose KV bytes per token size the curve (catalog name or config.json)",
              "",
              "--hw",
              "hardware (sets TP when --tp is not given)",
              deflt};
    case ModelUse::kTimedModel:
      return {
          "--model",
          "a dense model whose layer shapes are timed (catalog name or config.json)",
          "llama-3.1-8b",
          "--hw",
          fmt::format("hardware table entry for the peaks (auto: from the device name; with --from-vllm, {})",
                      deflt),
          "auto"};
    case ModelUse::kAssessment:
      return {
          "",
          "",
          "",
          "--hw",
          fmt::format("default assessment: hardware for sizing and simulation (default: detected, else {})",
                      deflt),
          ""};
  }
  throw std::logic_error("model_flag_text: an unknown ModelUse");
}

void add_model_flags(CLI::App* app, ServerFlags& f, ModelUse use, std::vector<CLI::Option*>& added) {
  const auto t = model_flag_text(use);
  if (!t.model_names.empty()) {
    f.model = t.model_default;
    auto* model = app->add_option(t.model_names, f.model, t.model_help);
    if (!t.model_default.empty()) model->capture_default_str();
    added.push_back(model);
  }
  f.hw = t.hw_default;
  auto* hw = app->add_option(t.hw_names, f.hw, t.hw_help);
  if (!t.hw_default.empty()) hw->capture_default_str();
  added.push_back(hw);
}

bool wanted(const ServerField& field, const ServerFlagSet& set) {
  if (field.from_flag == nullptr) return false;
  if (field.parallelism && set.parallelism == Parallelism::kExcluded) return false;
  return set.scope == FieldScope::kAll || field.sizes_pool;
}

}  // namespace

std::string ServerFlags::text(const std::string& key) const {
  const auto it = given.find(key);
  return it == given.end() ? std::string() : it->second;
}

bool ServerFlags::hw_given() const {
  const auto* option = app != nullptr ? app->get_option_no_throw("--hw") : nullptr;
  return option != nullptr && option->count() > 0;
}

std::vector<CLI::Option*> add_server_flags(CLI::App* app, ServerFlags& f, const ServerFlagSet& set) {
  f.app = app;
  std::vector<CLI::Option*> added;
  add_model_flags(app, f, set.model, added);
  for (const auto& field : server_fields()) {
    if (!wanted(field, set)) continue;
    auto& text = f.given[field.key];  // std::map: the reference stays valid as others are added
    const auto own = set.help.find(field.key);
    const auto help = set.help_prefix + (own != set.help.end() ? own->second : field.help);
    if (field.is_switch) {
      added.push_back(app->add_flag_callback(
          field.flags, [&text] { text = "on"; }, help));
    } else {
      added.push_back(app->add_option(field.flags, text, help));
    }
  }
  return added;
}

bool pp_given(const ServerFlags& f) {
  const auto* pp = f.app != nullptr ? f.app->get_option_no_throw("--pp") : nullptr;
  return pp != nullptr && pp->count() > 0;
}

bool parallelism_given(const ServerFlags& f) {
  return !f.text("tensor-parallel-size").empty() || pp_given(f) || !f.text("data-parallel-size").empty();
}

bool any_server_flag(const ServerFlags& f) {
  for (const auto& [key, text] : f.given)
    if (!text.empty()) return true;
  return false;
}

void apply_server_flags(const ServerFlags& f, ServeSettings& v) {
  for (const auto& field : server_fields()) {
    const auto text = f.text(field.key);
    if (field.from_flag != nullptr && !text.empty()) field.from_flag(text, v);
  }
}

}  // namespace kvb

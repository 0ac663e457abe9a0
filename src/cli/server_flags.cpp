#include "cli/server_flags.hpp"

#include <algorithm>
#include <functional>

#include "core/units.hpp"
#include "sim/server_fields.hpp"

namespace kvb {
namespace {

// Registers the fields with a flag that `wanted` picks.
void add_fields(CLI::App* app, ServerFlags& f, const std::function<bool(const ServerField&)>& wanted) {
  f.app = app;
  for (const auto& field : server_fields()) {
    if (field.from_flag == nullptr || !wanted(field)) continue;
    auto& text = f.given[field.key];  // std::map: the reference stays valid as others are added
    if (field.is_switch) {
      app->add_flag_callback(
          field.flags, [&text] { text = "on"; }, field.help);
    } else {
      app->add_option(field.flags, text, field.help);
    }
  }
}

const ServerField& context_field() {
  for (const auto& field : server_fields())
    if (field.key == "max-model-len") return field;
  throw std::logic_error("server_fields() has no max-model-len");
}

}  // namespace

std::string ServerFlags::text(const std::string& key) const {
  const auto it = given.find(key);
  return it == given.end() ? std::string() : it->second;
}

void add_parallelism_flags(CLI::App* app, ServerFlags& f) {
  add_fields(app, f, [](const ServerField& field) { return field.parallelism; });
}

void add_named_server_flags(CLI::App* app, ServerFlags& f, const std::vector<std::string>& keys) {
  add_fields(app, f, [&](const ServerField& field) {
    return std::find(keys.begin(), keys.end(), field.key) != keys.end();
  });
}

void add_server_flags(CLI::App* app, ServerFlags& f) {
  add_parallelism_flags(app, f);
  add_serve_flags(app, f);
}

void add_serve_flags(CLI::App* app, ServerFlags& f) {
  add_fields(app, f, [](const ServerField& field) { return !field.parallelism; });
}

CLI::Option* add_context_flag(CLI::App* app, std::string& text, const std::string& help) {
  return app->add_option(context_field().flags, text, std::string(kContextLengthForms) + " (" + help + ")");
}

std::int64_t parse_context_flag(const std::string& text) {
  ServeSettings v;
  context_field().from_flag(text, v);
  return *v.max_model_len;
}

bool pp_given(const ServerFlags& f) {
  const auto* pp = f.app != nullptr ? f.app->get_option_no_throw("--pp") : nullptr;
  return pp != nullptr && pp->count() > 0;
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

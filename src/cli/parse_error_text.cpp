#include "cli/parse_error_text.hpp"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "core/strings.hpp"

namespace kvb {
namespace {

// The subcommand whose flags were being read (the deepest one parsed), or the app itself.
const CLI::App& subcommand_parsed(const CLI::App& app) {
  for (const auto* sub : app.get_subcommands()) return subcommand_parsed(*sub);
  return app;
}

// CLI11 names a flag by its first long name: its aliases are named too (--max-model-len/--ctx).
std::string flag_names(const CLI::App& app, const std::string& name) {
  const auto* option = subcommand_parsed(app).get_option_no_throw(name);
  if (option == nullptr || option->get_lnames().size() < 2) return name;
  std::vector<std::string> names;
  for (const auto& n : option->get_lnames()) names.push_back("--" + n);
  return join(names, "/");
}

// CLI11 words a flag given twice "--model: At Most 1 required but received 2" and a flag with no
// value after it "--model: 1 required TEXT missing".
std::string flag_count_text(const std::string& what, const CLI::App& app) {
  const auto colon = what.find(": ");
  if (colon == std::string::npos || what.rfind("--", 0) != 0) return "";
  const auto name = flag_names(app, what.substr(0, colon));
  const auto rest = what.substr(colon + 2);
  constexpr std::string_view kTooMany = "At Most 1 required but received ";
  if (rest.rfind(kTooMany, 0) == 0)
    return fmt::format("{} given {} times; expected it once", name, rest.substr(kTooMany.size()));
  if (rest.rfind("1 required ", 0) == 0 && rest.size() > 8 && rest.substr(rest.size() - 8) == " missing")
    return fmt::format("{}: no value given; expected a value after it", name);
  return "";
}

// CLI11 lists the arguments it could not place last to first; they are named in the order given.
std::string extras_text(const CLI::App& app) {
  const auto& sub = subcommand_parsed(app);
  const std::vector<std::string> extras = sub.remaining(true);
  if (extras.empty()) return "";
  const std::string where = &sub == &app ? "kvbench" : "kvbench " + sub.get_name();
  return fmt::format("{}: unexpected argument{} {}; expected only the flags and arguments of {} --help",
                     where, extras.size() == 1 ? "" : "s", join(extras, " "), where);
}

}  // namespace

std::string parse_error_text(const CLI::ParseError& e, const CLI::App& app) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    if (auto text = flag_count_text(what, app); !text.empty()) return text;
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    if (auto text = extras_text(app); !text.empty()) return text;
  }
  return what + " (see kvbench --help)";
}

}  // namespace kvb

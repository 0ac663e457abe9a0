#include "output/compare/compare_output.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/strings.hpp"
#include "output/common/text_table.hpp"

namespace kvb {
namespace {

std::string value_text(double v) { return v >= 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.3g}", v); }

std::string change_text(const CaseComparison& c) {
  if (c.p_value >= 1 && c.change_low == 0 && c.change_high == 0)
    return fmt::format("{:+.1f}%", 100 * c.change);
  return fmt::format("{:+.1f}% [{:+.1f}, {:+.1f}]", 100 * c.change, 100 * c.change_low, 100 * c.change_high);
}

std::string summary_line(const Comparison& c) {
  return fmt::format("{} same, {} faster, {} slower, {} inconclusive; min effect {:g}%, alpha {:g}",
                     c.count(Verdict::kSame), c.count(Verdict::kFaster), c.count(Verdict::kSlower),
                     c.count(Verdict::kInconclusive), 100 * c.settings.min_effect, c.settings.alpha);
}

// Markdown table cells: a pipe would end the cell, a newline the row.
std::string md_cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n') {
      out += ' ';
    } else if (ch == '<') {
      out += "&lt;";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string unmatched_lines(const Comparison& c, const char* bullet, bool markdown) {
  // Long lists (every size of a waived method) are cut: the first few say what kind they are.
  const auto list = [&](const std::vector<std::string>& labels) {
    constexpr std::size_t kShown = 6;
    std::vector<std::string> shown(
        labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(std::min(kShown, labels.size())));
    auto text = join(shown, ", ");
    if (labels.size() > kShown) text += fmt::format(" and {} more", labels.size() - kShown);
    return markdown ? md_cell(text) : text;
  };
  std::string out;
  if (!c.only_base.empty())
    out += fmt::format("{}only in base (not compared): {}\n", bullet, list(c.only_base));
  if (!c.only_head.empty())
    out += fmt::format("{}only in head (not compared): {}\n", bullet, list(c.only_head));
  if (!c.waived.empty()) out += fmt::format("{}waived in base or head: {}\n", bullet, list(c.waived));
  return out;
}

}  // namespace

std::string compare_table(const Comparison& c) {
  std::string out = fmt::format("kvbench compare ({}): base {} [{}] vs head {} [{}]\n", c.kind, c.base_origin,
                                c.base_setting, c.head_origin, c.head_setting);
  out +=
      "Measured samples; change = Hodges-Lehmann shift of head vs base with its interval; p from "
      "Mann-Whitney U.\n";
  TextTable t({"case", "unit", "base", "head", "change [interval]", "p", "n", "verdict"});
  for (const auto& k : c.cases) {
    t.add_row({k.label, k.unit, value_text(k.base_median), value_text(k.head_median), change_text(k),
               fmt::format("{:.2g}", k.p_value), fmt::format("{}/{}", k.base_n, k.head_n),
               to_string(k.verdict)});
  }
  out += t.render();
  out += summary_line(c) + "\n";
  out += unmatched_lines(c, "", false);
  return out;
}

std::string compare_markdown(const Comparison& c) {
  const auto slower = c.count(Verdict::kSlower);
  std::string out = fmt::format("### kvbench compare: {}\n\n",
                                slower > 0 ? fmt::format("{} SLOWER", slower) : "no regression");
  out +=
      fmt::format("{} results. Base `{}` ({}), head `{}` ({}).\n\n", md_cell(c.kind), md_cell(c.base_origin),
                  md_cell(c.base_setting), md_cell(c.head_origin), md_cell(c.head_setting));
  out += "| case | base | head | change [interval] | p | verdict |\n|---|---:|---:|---:|---:|---|\n";
  // Regressions first: a reviewer reads the top of the comment.
  for (const Verdict v : {Verdict::kSlower, Verdict::kInconclusive, Verdict::kFaster, Verdict::kSame}) {
    for (const auto& k : c.cases) {
      if (k.verdict != v) continue;
      const std::string mark = v == Verdict::kSlower ? "**SLOWER**" : to_string(v);
      out += fmt::format("| {} | {} {} | {} {} | {} | {:.2g} | {} |\n", md_cell(k.label),
                         value_text(k.base_median), k.unit, value_text(k.head_median), k.unit, change_text(k),
                         k.p_value, mark);
    }
  }
  // Appended piecewise: GCC 12's -Wrestrict misfires on `"literal" + std::string&&` at -O3.
  out += fmt::format("\n{}.\n", summary_line(c));
  const auto extra = unmatched_lines(c, "- ", true);
  if (!extra.empty()) out += fmt::format("\n{}", extra);
  return out;
}

nlohmann::json compare_benchmark_action_json(const Comparison& c) {
  auto out = nlohmann::json::array();
  for (const auto& k : c.cases) {
    nlohmann::json j;
    j["name"] = (c.kind == "kvbench dma" ? "dma " : "") + k.label;
    j["unit"] = k.unit;
    j["value"] = k.head_median;
    j["extra"] = fmt::format("{}: {} vs base {} {} ({}, p {:.2g}); {}", to_string(k.verdict), change_text(k),
                             value_text(k.base_median), k.unit, k.why, k.p_value, c.head_setting);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace kvb

// `kvbench compare base.json head.json`: a performance regression check. Exit 1 when any case
// is SLOWER, so a CI job fails on it.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/output_flags.hpp"
#include "compare/benchmark_set.hpp"
#include "compare/compare.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"
#include "output/common/occupancy_text.hpp"
#include "output/compare/compare_output.hpp"

namespace kvb {
namespace {

struct CompareOptions {
  std::string base, head;
  std::string min_effect = "5%";
  std::string alpha = "0.05";
  OutputFlags out;
  std::string markdown_output;
  std::string action_output;
  bool allow_disturbed = false;
};

// "5%" or "0.05": a share above 0 and below `below` (1 for --min-effect, 0.5 for --alpha).
double parse_fraction(const std::string& text, const char* what, double below, const char* example) {
  const bool percent = !text.empty() && text.back() == '%';
  double v = -1;
  try {
    v = percent ? parse_plain_real(text.substr(0, text.size() - 1), what) / 100.0
                : parse_plain_real(text, what);
  } catch (const UsageError&) {
  }
  if (!(v > 0) || !(v < below)) {
    throw UsageError(fmt::format("{}: '{}' is not a share above 0 and below {:g} ({:g}%); expected e.g. {}",
                                 what, text, below, below * 100, example));
  }
  return v;
}

// compare's printers: the table, Markdown for a pull request, github-action-benchmark's JSON.
const Printers<Comparison> kComparePrinters{
    {OutputFormat::kTable, [](const Comparison& c) { return compare_table(c); }},
    {OutputFormat::kMarkdown, [](const Comparison& c) { return compare_markdown(c); }},
    {OutputFormat::kJson,
     [](const Comparison& c) { return json_text(compare_benchmark_action_json(c), 2); }}};

int run_compare(const CompareOptions& o) {
  const auto format = chosen_format(o.out);
  CompareSettings settings;
  settings.min_effect = parse_fraction(o.min_effect, "--min-effect", 1.0, "5% or 0.05");
  settings.alpha = parse_fraction(o.alpha, "--alpha", 0.5, "0.05");
  const auto base = load_benchmark_set(o.base);
  const auto head = load_benchmark_set(o.head);
  if (const auto shared = first_disturbed(base, head); shared && !o.allow_disturbed) {
    throw UsageError(
        fmt::format("{}: {}; a regression is not called between runs where another process shared the "
                    "GPU (rerun on an idle GPU, or pass --allow-disturbed)",
                    shared->origin, occupancy_text(shared->device)));
  }
  const auto result = compare_sets(base, head, settings);
  if (!o.markdown_output.empty()) write_file_atomically(o.markdown_output, compare_markdown(result));
  if (!o.action_output.empty()) {
    write_file_atomically(o.action_output, json_text(compare_benchmark_action_json(result), 2));
  }
  emit_result(o.out, format, kComparePrinters, result);
  const auto slower = result.count(Verdict::kSlower);
  if (slower > 0) {
    std::fprintf(stderr, "kvbench: compare: %zu case%s SLOWER than %s\n", slower, slower == 1 ? "" : "s",
                 printable_path(o.base).c_str());
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

Command register_compare(CLI::App& parent) {
  auto o = std::make_shared<CompareOptions>();
  auto* app = parent.add_subcommand(
      "compare",
      "performance regression check: SAME, FASTER, SLOWER or INCONCLUSIVE per case; exit 1 on SLOWER");
  app->add_option("base", o->base, "baseline: kvbench dma JSON or Google Benchmark JSON")->required();
  app->add_option("head", o->head, "the run to check, of the same kind")->required();
  app->add_flag(
      "--allow-disturbed", o->allow_disturbed,
      "compare dma runs even where another process shared the GPU (recorded as other_gpu_processes)");
  app->add_option("--min-effect", o->min_effect, "smallest change that counts: 5% or 0.05")
      ->capture_default_str();
  app->add_option("--alpha", o->alpha, "significance level of the Mann-Whitney U test")
      ->capture_default_str();
  add_output_flags(app, o->out, formats_of(kComparePrinters), "github-action-benchmark customBiggerIsBetter");
  app->add_option("--markdown-output", o->markdown_output,
                  "write the Markdown (for a pull-request comment) here");
  app->add_option("--action-output", o->action_output,
                  "write github-action-benchmark customBiggerIsBetter JSON (head medians) here");
  return Command{app, [o] { return run_compare(*o); }};
}

}  // namespace kvb

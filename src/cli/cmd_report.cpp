// `kvbench report [result.json ...] -o report.html`: one self-contained HTML report. With no
// inputs it runs the default assessment itself (dma sweep, simulation sweep, sizing).
#include <fmt/format.h>
#include <sys/utsname.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "assess/default_assessment.hpp"
#include "cli/command.hpp"
#include "cli/server_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/interrupt.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"
#include "dma/dma_sweep.hpp"
#include "kvbench_config.hpp"
#include "report/report_inputs.hpp"
#include "report/report_sections.hpp"
#include "sim/server_fields.hpp"
#include "storage/storage_record.hpp"

namespace kvb {
namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output = "report.html";
  std::string max_time;  // the default assessment's --max-time, when given
  ServerFlags server;    // --hw and the flags that size the GPU pool (--ctx, ...), read at the edge
  AssessmentSettings assessment;
  std::vector<CLI::Option*> assessment_flags;  // meaningful only without input files
  CLI::Option* output_flag = nullptr;
  // report.html without -o is a name kvbench chose: a link planted there is replaced, not followed.
  LinkRule output_rule() const {
    return output_flag != nullptr && output_flag->count() > 0 ? LinkRule::kFollow : LinkRule::kReplaceLink;
  }
};

// A default-assessment flag beside result files would be ignored without a word (--models bogus
// exited 0): refused instead, naming it.
void refuse_assessment_flags(const ReportOptions& o) {
  for (const auto* flag : o.assessment_flags) {
    if (flag->count() == 0) continue;
    throw UsageError(
        fmt::format("{}: applies to the default assessment (kvbench report with no input files) and would "
                    "be ignored beside {} result file{}; expected it without input files",
                    flag->get_name(), o.inputs.size(), o.inputs.size() == 1 ? "" : "s"));
  }
}

// The server flags given, as the default assessment applies them: refused now (exit 2) where a value
// is, before anything is measured. A --tp, --pp or --dp given ends the sizing's configuration search.
std::function<void(ServeSettings&)> assessment_server(const ServerFlags& flags) {
  if (!any_server_flag(flags)) return nullptr;
  ServeSettings check;
  apply_server_flags(flags, check);
  const bool fixed = parallelism_given(flags);
  return [flags, fixed](ServeSettings& v) {
    if (fixed) v.tensor_parallel_auto = false;
    apply_server_flags(flags, v);
  };
}

std::string host_description() {
  utsname u{};
  if (uname(&u) != 0) return "unknown host";
  return fmt::format("{} {} {} ({})", u.sysname, u.release, u.machine, u.nodename);
}

int run_report(const ReportOptions& o) {
  ReportInputs in;
  ReportContext ctx;
  ctx.tool_version = std::string("kvbench ") + KVBENCH_VERSION;
  ctx.generated_utc = utc_now("%Y-%m-%d %H:%M UTC");
  ctx.host = host_description();
  require_writable_output(o.output, o.output_rule());
  if (o.inputs.empty()) {
    auto settings = o.assessment;
    if (!o.max_time.empty()) settings.dma.rule.max_seconds = parse_plain_real(o.max_time, "--max-time");
    settings.hw = o.server.hw;
    settings.server_flags = assessment_server(o.server);
    if (settings.compute_blocks == "none") settings.compute_blocks.clear();
    ctx.how =
        "default assessment run by kvbench report (dma measured now, simulation and sizing computed now)";
    in = run_default_assessment(settings, [](const std::string& line) {
      std::fprintf(stderr, "kvbench: report: %s\n", line.c_str());
    });
  } else {
    refuse_assessment_flags(o);
    ctx.how = fmt::format("from {} result file{}", o.inputs.size(), o.inputs.size() == 1 ? "" : "s");
    for (const auto& path : o.inputs) load_report_file(in, path);
  }
  if (interrupt_requested()) {
    ctx.how +=
        fmt::format("; interrupted by {}: only what finished before it is shown", interrupt_signal_name());
  }
  const auto html = report_html(in, ctx);
  write_file_atomically(o.output, html, o.output_rule());
  std::printf("kvbench report: wrote %s (%.0f KiB): %zu dma records, %zu simulations, %zu sizings%s%s\n",
              printable_path(o.output).c_str(), static_cast<double>(html.size()) / 1024.0, in.dma.size(),
              in.simulations.size(), in.sizings.size(),
              in.calibrations.empty() ? "" : fmt::format(", {} calibrations", in.calibrations.size()).c_str(),
              in.storage.empty() ? "" : fmt::format(", {} storage results", in.storage.size()).c_str());
  require_verified(in.dma);  // a copy that did not verify fails the run, after the report shows it
  for (const auto& d : in.storage) require_verified(d.records);
  return kExitOk;
}

}  // namespace

Command register_report(CLI::App& parent) {
  auto o = std::make_shared<ReportOptions>();
  auto& a = o->assessment;
  auto* app = parent.add_subcommand(
      "report",
      "one self-contained HTML report from kvbench JSON results; with none, runs the default assessment");
  app->add_option("inputs", o->inputs,
                  "kvbench dma, simulate or size JSON files (none: measure and compute now)");
  o->output_flag =
      app->add_option("--output,-o", o->output, "the HTML file, written atomically")->capture_default_str();
  auto& flags = o->assessment_flags;
  flags.push_back(
      app->add_option("--backend", a.backend, "default assessment: dma backend (auto, cuda, hip, host)")
          ->capture_default_str());
  flags.push_back(app->add_option("--device", a.device, "default assessment: GPU index")
                      ->capture_default_str()
                      ->check(CLI::Range(0, 1023)));
  flags.push_back(app->add_option("--scenario", a.scenario, "default assessment: simulation scenario")
                      ->capture_default_str());
  flags.push_back(app->add_option("--models", a.models, "default assessment: models to size (comma list)")
                      ->capture_default_str());
  // --hw and the server flags its sizing and simulation read: not the tiers' (the sizing recommends
  // the CPU tier, the simulation sweeps it).
  ServerFlagSet server(ModelUse::kAssessment, Parallelism::kIncluded, FieldScope::kPoolOnly);
  server.help_prefix = "default assessment: ";
  server.help["max-model-len"] = std::string(kContextLengthForms) + " (default 128K)";
  for (auto* flag : add_server_flags(app, o->server, server)) flags.push_back(flag);
  flags.push_back(
      app->add_option("--block", a.dma.block, "default assessment: dma block sizes")->capture_default_str());
  flags.push_back(
      app->add_option("--compute-block", a.compute_blocks,
                      "default assessment: block sizes measured --with-compute ('none' or empty: none)")
          ->capture_default_str());
  flags.push_back(app->add_option("--max-time", o->max_time,
                                  "default assessment: seconds per dma case at most (default 1)"));
  flags.push_back(app->add_option(
      "--save-json", a.save_json_dir,
      "default assessment: also write dma.json, simulate.json, size.json into this directory"));
  return Command{app, [o] { return run_report(*o); }};
}

}  // namespace kvb

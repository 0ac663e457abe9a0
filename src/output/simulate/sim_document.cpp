#include "output/simulate/sim_document.hpp"

#include "core/path_text.hpp"
#include "kvbench_config.hpp"
#include "output/common/link_origin_text.hpp"
#include "output/common/time_model_text.hpp"

namespace kvb {
namespace {

SimPointRecord point_record(const SweepPoint& p) {
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  return {.params = p.params,
          .offloading = p.offloading,
          .kv_offloading_gib = p.kv_offloading_gib,
          .gpu_blocks = p.gpu_blocks,
          .cpu_blocks = p.cpu_blocks,
          .max_model_len = p.max_model_len,
          .metrics = p.result,
          .vs_no_offload = {.output_tokens_per_s_ratio =
                                ratio(p.result.output_tokens_per_s, p.baseline.output_tokens_per_s),
                            .ttft_p50_ratio = ratio(p.result.ttft_s.p50, p.baseline.ttft_s.p50),
                            .ttft_p99_ratio = ratio(p.result.ttft_s.p99, p.baseline.ttft_s.p99),
                            .baseline_output_tokens_per_s = p.baseline.output_tokens_per_s,
                            .baseline_ttft_p99_s = p.baseline.ttft_s.p99}};
}

}  // namespace

SimulateDocument simulate_document(const SweepRun& run) {
  SimulateDocument d{.tool = std::string("kvbench ") + KVBENCH_VERSION,
                     .scenario_name = run.scenario.name,
                     .scenario_origin = run.scenario.origin,
                     .scenario_description = run.scenario.description,
                     .seed = run.scenario.seed,
                     .trace = run.scenario.trace,
                     .server = run.server,
                     .cpu_block_bytes = run.cpu_block_bytes,
                     .gpu_blocks = run.gpu_blocks,
                     .link = run.link,
                     .time_model = run.time_model,
                     .expected_error = run.expected_error,
                     .notes = run.notes,
                     .replicas = run.scenario.fleet.replicas,
                     .router = run.scenario.fleet.router,
                     .interrupted = run.interrupted,
                     .interrupted_during = run.interrupted_during,
                     .sweep = run.axes,
                     .points = {}};
  if (d.trace) d.trace->path = printable_path(d.trace->path);
  for (const auto& p : run.points) d.points.push_back(point_record(p));
  return d;
}

nlohmann::json simulate_json(const SweepRun& run) { return simulate_json(simulate_document(run)); }

std::string link_words(const SimulateDocument& d) {
  if (const auto* link = std::get_if<LinkProfile>(&d.link)) return link_source_text(*link);
  return std::get<std::string>(d.link);
}

std::string time_model_words(const SimulateDocument& d) {
  if (const auto* terms = std::get_if<TimeModelTerms>(&d.time_model)) return time_model_text(*terms);
  return std::get<std::string>(d.time_model);
}

}  // namespace kvb

// The size section: KV bytes per token, what fits, the recommended --kv-offloading-size and the
// vLLM command for each configuration.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <set>

#include "core/units.hpp"
#include "output/size/size_text.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"

namespace kvb {
namespace {

// Why a row's tier is that size: a simulation of a workload (the same model may also have the
// rule's row), or the sizing rule.
std::string basis_of(const Sizing& r) {
  if (r.offload && r.offload->recommendation.simulated())
    return "simulated for " + r.offload->recommendation.workload;
  return "rule (sessions kept warm)";
}

// The recommended --kv-offloading-size in whole GiB, as the CLI prints it; none where the weights
// do not fit (no plan).
std::optional<double> recommended_gib(const Sizing& r) {
  if (!r.offload) return std::nullopt;
  return static_cast<double>(std::llround(r.offload->recommended_gib()));
}

}  // namespace

std::string sizing_section_html(const std::vector<Sizing>& rows) {
  std::string out = "<section id=\"size\"><h2>Sizing (<code>kvbench size</code>, computed)</h2>\n";
  if (rows.empty()) {
    return out +
           "<p class=\"missing\">No size results in this report. Run <code>kvbench size --model M --hw H "
           "--json -o size.json</code> and pass the file.</p></section>\n";
  }
  out +=
      "<p>Computed from vLLM's KV-cache arithmetic and a stated memory-budget model; none of it is measured. "
      "The recommended tier keeps full-length sessions warm in host DRAM, capped by the node's memory.</p>\n";
  out +=
      "<table class=\"data\"><thead><tr><th>model</th><th>hw</th><th>TP</th><th>weights</th><th>KV dtype</th>"
      "<th>KV B/token/rank</th><th>max-model-len</th><th>GPU KV tokens</th><th>full-length requests</th>"
      "<th>--kv-offloading-size</th><th>basis</th><th>reload vs recompute</th></tr></thead><tbody>\n";
  for (const auto& r : rows) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        html_escape(r.server.model), html_escape(r.server.hardware), r.server.tensor_parallel_size,
        html_escape(r.weights_fit ? r.server.weight_dtype : r.server.weight_dtype + " (do not fit)"),
        html_escape(r.server.kv_cache_dtype),
        // A configuration whose weights do not fit has no KV pool: "-", as the CLI prints, not 0.
        format_count(r.layout.kv_bytes_per_token()), format_count(r.server.max_model_len),
        r.weights_fit ? format_count(r.gpu_context_tokens()) : std::string("-"),
        r.weights_fit ? fmt::format("{:.2f}", r.max_concurrency) : std::string("-"),
        recommended_gib(r) ? fmt::format("{:g} GiB", *recommended_gib(r)) : std::string("-"),
        html_escape(basis_of(r)), html_escape(r.reload ? reload_verdict_text(*r.reload) : ""));
  }
  out += "</tbody></table>\n<h3>vLLM command lines</h3>\n";
  std::set<std::string> shown;  // the workload's sizing and the table's row can be one configuration
  for (const auto& r : rows) {
    if (!shown.insert(r.vllm_command).second) continue;
    // Two commands for one model (the workload's simulated size and the rule's) say which is which.
    const auto gib = recommended_gib(r);
    const auto size = gib ? fmt::format("--kv-offloading-size {:g}", *gib) : std::string("no CPU tier");
    out += fmt::format(
        "<details><summary>{} on {} (TP {}, {} weights): {} ({})</summary><pre>{}</pre></details>\n",
        html_escape(r.server.model), html_escape(r.server.hardware), r.server.tensor_parallel_size,
        html_escape(r.server.weight_dtype), size, html_escape(basis_of(r)), html_escape(r.vllm_command));
  }
  return out + "</section>\n";
}

}  // namespace kvb

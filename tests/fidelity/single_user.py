#!/usr/bin/env python3
"""gpt-oss-120b one request at a time against real vLLM (issue 53's first done-when): TEASBench's vLLM 0.16.0
runs at batch 1 (--max-num-seqs 1, one request in flight) on one H100, H200 and A100
(tests/data/ground-truth/teasbench-gpt-oss-120b-batch1.csv: three datasets each, where they come from and
how TEASBench measured them). Nothing here was fitted to these runs: they are held out.

Each run is simulated with its dataset's mean prompt and output and its TPOT compared with the measured one.
TPOT is TEASBench's mean decode step, measured in the server, which is what kvbench's TPOT is at one request
in flight. TTFT is printed, not scored: the prompt lengths are derived from the same TTFT (ttft x the
measured prefill rate), so it could not fail on its own.

With --check it fails when a run on one H100 (the done-when: within 25%) or any run of a GPU outside
KNOWN_OFF is past BOUND.

  single_user.py KVBENCH DATA_DIR [--check]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tier_cost  # noqa: E402

BOUND = 0.25  # issue 53: gpt-oss-120b on one H100 at batch 1, TPOT within 25% of a public measurement
# GPUs whose batch-1 decode kvbench is known to be off for, with the mechanism (docs/accuracy.md).
KNOWN_OFF = {
    "h200": "25-26% fast: its measured step is within 4% of the H100's (4.96 vs 5.14 ms on gsm8k) though its HBM "
            "is 1.43x faster, so at one request the step is bound by a floor that does not scale with bandwidth "
            "(the same 1.98 GHz clock: kernel latency); kvbench scales the weights' reads and has only its fitted "
            "per-step overhead for the rest",
    "a100-80gb": "18-27% fast: the same floor at the A100's 1.41 GHz clock (its measured steps are 1.40-1.53x "
                 "the H100's; the clocks' ratio is 1.40)",
}
SOURCE = "TEASBench (GitHub TEAS-project/TEAS-Bench-Web public/data/db.json), vLLM {version}"
SERVER = """name: teasbench-gpt-oss-120b-{hardware}-{workload}
model: gpt-oss-120b
hardware: {hardware}
tensor-parallel-size: 1
max-model-len: 32768
max-num-seqs: 1
vllm-version: "{version}"
seed: 42
workload:
  requests: 8
  arrival: {{process: closed, users: 1}}
  prompt: {prompt}
  output: {output}
"""


def rows(kvbench, data):
    """(run, hardware, measured TTFT ms, simulated TTFT ms, measured TPOT ms, simulated TPOT ms) per run."""
    out = []
    with tempfile.TemporaryDirectory() as work:
        for run in tier_cost.ground_truth(data, "teasbench-gpt-oss-120b-batch1.csv"):
            version = ".".join(run["vllm_version"].split(".")[:2])
            m = tier_cost.simulate(kvbench, SERVER.format(
                hardware=run["hardware"], workload=run["workload"], version=version,
                prompt=int(run["prompt_tokens"]), output=round(float(run["output_tokens_mean"]))), work)
            out.append((f"{run['hardware']} {run['workload']}", run["hardware"], 1e3 * float(run["ttft_s"]),
                        1e3 * m["ttft_s"]["mean"], float(run["tpot_ms"]), 1e3 * m["tpot_s"]["mean"]))
    return out


def error(measured, simulated):
    return (simulated - measured) / measured


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    rows_ = rows(argv[1], argv[2])
    print(f"gpt-oss-120b, one request at a time: {SOURCE.format(version='0.16.0')}")
    print(f"{'run':<24} {'TTFT ms':>8} {'sim':>8} {'TPOT ms':>8} {'sim':>8} {'TPOT error':>10}")
    failed = []
    for run, hardware, ttft, sim_ttft, tpot, sim_tpot in rows_:
        e = error(tpot, sim_tpot)
        print(f"{run:<24} {ttft:>8.1f} {sim_ttft:>8.1f} {tpot:>8.2f} {sim_tpot:>8.2f} {100 * e:>+9.1f}%")
        if abs(e) > BOUND and hardware not in KNOWN_OFF:
            failed.append(f"{run} TPOT {100 * e:+.1f}%")
    for hardware in sorted({r[1] for r in rows_}):
        errors = [abs(error(r[4], r[5])) for r in rows_ if r[1] == hardware]
        print(f"  {hardware}: TPOT mean absolute error {100 * sum(errors) / len(errors):.1f}% "
              f"(worst {100 * max(errors):.1f}%) over {len(errors)} runs" +
              (f"; known off: {KNOWN_OFF[hardware]}" if hardware in KNOWN_OFF else ""))
    h100 = [r for r in rows_ if r[1] == "h100"]
    met = all(abs(error(r[4], r[5])) <= BOUND for r in h100)
    print(f"issue 53 done-when (one H100, one request at a time, {len(h100)} runs): "
          f"{'met' if met else 'not met'} (bound {100 * BOUND:.0f}%)")
    if "--check" in argv and failed:
        print("FAIL: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The simulator against real vLLM 0.15.1 servers it was not fitted to (issue 32): the 16 runs of
GitHub inference-sim/training (tests/data/ground-truth/inference-sim-training-h100.csv, README there):
Llama-2-7B (TP 1), Llama-2-70B (TP 4), Mixtral-8x7B (TP 2, mixture of experts) and CodeLlama-34B
(TP 2) on H100s, four workloads each, one or two load stages per run.

What the client sent (the configuration as inference-perf parsed it, results/config.yaml, not the
profile it was given): 10 groups x 10 prompts built once (a group's system prompt, then a question),
shuffled and sent round-robin at constant spacing, so each prompt returns 100 requests later; the
server generated output_len tokens (ignore_eos). Simulated as 100 documents of the measured prompt
length read in turn, one new token each (the recomputed last token of a full prefix hit), each stage
on its own from a cold cache. The reasoning runs saturate the server; inference-perf's HTTP client
gave up after 300 s (aiohttp's default total timeout: the runs' `failures`), modelled with the
workload's client-timeout, and their means count only the survivors, as the client's do; they are
printed, not scored (SATURATED below).

Prints measured vs simulated TTFT and E2E mean per stage and the mean absolute error per model and
overall. The bounds (issue 32: mean |error| 10%, no run past 25%) are checked by fidelity.py, which
replays the scored runs beside the others (fidelity_rows) and writes the figures kvbench states.

  training.py KVBENCH DATA_DIR [--only MODEL] [--set KEY=VALUE ...]
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

CLIENT_TIMEOUT_S = 300
# Printed, not scored: the reasoning runs offer more than the servers can serve (4 requests/s of
# 1,448 output tokens), so their survivors' means measure how far the queue grew in 20 minutes: a
# capacity 3% off moves them by half (CodeLlama-34B: TTFT 120 s measured, 45 s simulated, with
# decode steps within 3% at lower loads). Their timeouts are modelled all the same.
SATURATED = "reasoning"
WHY_NOT_SCORED = ("saturated (offered load above capacity): the survivors' means measure how far the queue "
                  "grew, which a few percent of capacity moves by half; printed, not scored")

SERVER = """name: training-{run}-stage{stage}
model: {model}
hardware: {hardware}
tensor-parallel-size: {tp}
max-model-len: {max_model_len}
max-num-batched-tokens: {max_num_batched_tokens}
max-num-seqs: {max_num_seqs}
vllm-version: "0.15"
seed: 1
{calibration}workload:
  requests: {requests}
  arrival: {{process: fixed, rate: {rate}}}
  documents: {prompts}
  document-tokens: {document}
  document-order: round-robin
  prompt: 1
  output: {output}
  client-timeout: {timeout}
"""


def read_rows(data):
    path = os.path.join(data, "ground-truth", "inference-sim-training-h100.csv")
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def scenario(row, calibration="", hardware="h100"):
    prompts = int(row["groups"]) * int(row["prompts_per_group"])
    return SERVER.format(hardware=hardware, calibration=calibration, run=row["run"], stage=row["stage"], model=row["model"], tp=row["tp"],
                         max_model_len=row["max_model_len"], max_num_batched_tokens=row["max_num_batched_tokens"],
                         max_num_seqs=row["max_num_seqs"], requests=round(float(row["rate"]) * int(row["duration_s"])),
                         rate=row["rate"], prompts=prompts, document=round(float(row["prompt_tokens_mean"])) - 1,
                         output=row["output_len"], timeout=CLIENT_TIMEOUT_S)


def simulate(kvbench, text, sets, work):
    path = os.path.join(work, "scenario.yaml")
    with open(path, "w") as f:
        f.write(text)
    cmd = [kvbench, "simulate", path, "--no-sweep", "--json"] + [a for s in sets for a in ("--set", s)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"training: kvbench simulate exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)["points"][0]["metrics"]


def score(kvbench, rows, sets, work, calibration="", hardware="h100"):
    """(row, metric, measured ms, simulated ms, simulated timed-out share) per scored figure."""
    out = []
    for row in rows:
        m = simulate(kvbench, scenario(row, calibration, hardware), sets, work)
        sent = m["requests"] + m.get("timed_out_requests", 0)
        timed_out = m.get("timed_out_requests", 0) / sent if sent else 0
        out.append((row, "TTFT mean", float(row["ttft_mean_ms"]), m["ttft_s"]["mean"] * 1e3, timed_out))
        out.append((row, "E2E mean", float(row["e2e_mean_ms"]), m["e2e_s"]["mean"] * 1e3, timed_out))
    return out


def fidelity_rows(kvbench, data, calibration, hardware, work, skip_model=None):
    """The scored (non-reasoning) runs as the fit reads them: (case, metric, measured, simulated)."""
    rows = [r for r in read_rows(data) if r["workload"] != SATURATED and r["model"] != skip_model]
    return [(f"training {label(row)}", f"training {metric}", measured, simulated)
            for row, metric, measured, simulated, _ in score(kvbench, rows, [], work, calibration, hardware)]


def label(row):
    return f"{row['model']} TP{row['tp']} {row['workload']} {float(row['rate']):g}/s"


def report(figures):
    print(f"{'case':<38} {'metric':<10} {'measured':>10} {'kvbench':>10} {'error':>8}  timed out (measured / kvbench)")
    errors = []
    for row, metric, measured, simulated, timed_out in figures:
        err = (simulated - measured) / measured
        errors.append((row, err))
        sent = int(row["successes"]) + int(row["failures"])
        print(f"{label(row):<38} {metric:<10} {measured:>10.1f} {simulated:>10.1f} {100 * err:>+7.1f}%"
              f"  {100 * int(row['failures']) / sent:.0f}% / {100 * timed_out:.0f}%")
    print()
    for model in sorted({r["model"] for r, _ in errors}):
        mine = [abs(e) for r, e in errors if r["model"] == model]
        print(f"{model:<16} mean |error| {100 * sum(mine) / len(mine):5.1f}% over {len(mine)} figures,"
              f" worst {100 * max(mine):5.1f}%")
    every = [abs(e) for _, e in errors]
    mean, worst = sum(every) / len(every), max(every)
    print(f"{'all':<16} mean |error| {100 * mean:5.1f}% over {len(every)} figures, worst {100 * worst:5.1f}%")
    return mean, worst


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    kvbench, data = argv[1], argv[2]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    rows = [r for r in read_rows(data) if not only or r["model"] == only]
    scored = [r for r in rows if r["workload"] != SATURATED]
    with tempfile.TemporaryDirectory() as work:
        report(score(kvbench, scored, sets, work))
        print(f"\nthe reasoning runs, {WHY_NOT_SCORED}:")
        report(score(kvbench, [r for r in rows if r["workload"] == SATURATED], sets, work))


if __name__ == "__main__":
    main(sys.argv)

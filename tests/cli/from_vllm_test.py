#!/usr/bin/env python3
"""kvbench calibrate --from-vllm (issue 22 §4): fitted on one real vLLM run (residency-vllm, 6 req/s),
starting from the PyTorch stand-in calibration (E2E +27% there), the calibration must predict the
other four runs (2, 4, 8, 10 req/s) within 10% E2E mean; vllm bench serve JSON is read too; bad files
are one-line exit 2 naming the file and the field.

usage: from_vllm_test.py KVBENCH DATA_DIR REPO_ROOT recovery|inputs
  recovery: the fit and the prediction (about 200 simulations of 3,600 requests: label fidelity,
            not run under the sanitizers, where it takes many minutes)
  inputs:   the file formats and the errors (small runs: label cli, run under the sanitizers too)
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

kvbench, data, root, part = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, "tests", "fidelity"))
import fidelity  # noqa: E402

failures = []
SERVER = ["--model", "qwen3-14b", "--hw", "h100", "--max-model-len", "40960", "--num-gpu-blocks", "18038"]


def run(*args, code=0):
    done = subprocess.run([kvbench, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != code:
        sys.exit(f"FAIL: kvbench {' '.join(args)} exited {done.returncode}, expected {code}: {done.stderr}")
    return done


with tempfile.TemporaryDirectory() as work:
    if part == "recovery":
        rate6 = os.path.join(work, "rate-6.csv")
        with gzip.open(os.path.join(data, "ground-truth", "residency-qwen3-14b-h100-rate-6.csv.gz"), "rt") as src, \
                open(rate6, "w") as dst:
            shutil.copyfileobj(src, dst)
        cal = os.path.join(work, "fitted.yaml")
        out = run("calibrate", "--from-vllm", rate6, *SERVER, "--start",
                  os.path.join(root, "reports", "calibrations", "h100-pytorch-standin.yaml"), "-o", cal).stdout
        if "E2E mean" not in out:
            failures.append("the text does not show the E2E comparison")
        rows = fidelity.residency_rows(kvbench, data, fidelity.calibration_block(cal), work)
        for case, metric, measured, simulated in rows:
            if metric == "E2E mean" and "rate-6" not in case:
                err = (simulated - measured) / measured
                print(f"{case}: E2E mean {measured:.0f} ms measured, {simulated:.0f} ms with the rate-6 fit ({100 * err:+.1f}%)")
                if abs(err) > 0.10:
                    failures.append(f"{case}: E2E mean off by {100 * err:+.1f}% with the fit from rate-6")
    else:
        # vllm bench serve --save-result JSON: no start_times, a finite request_rate (arrivals drawn, said so).
        bench = os.path.join(work, "bench.json")
        with open(bench, "w") as f:
            json.dump({"request_rate": 2.0, "input_lens": [1000] * 40, "output_lens": [64] * 40,
                       "ttfts": [0.07] * 40, "itls": [[0.012] * 63] * 40}, f)
        out = run("calibrate", "--from-vllm", bench, *SERVER, "-o", os.path.join(work, "b.yaml")).stdout
        if "fitted:" not in out or "Poisson" not in open(os.path.join(work, "b.yaml")).read():
            failures.append("a bench JSON without start_times: the file does not say its arrivals were drawn")

        bad_csv = os.path.join(work, "bad.csv")
        with open(bad_csv, "w") as f:
            f.write("send_us,output_tokens,ttft_us,e2e_us\n0,128,1,2\n")
        bad_json = os.path.join(work, "bad.json")
        with open(bad_json, "w") as f:
            json.dump({"input_lens": [1], "output_lens": [1], "ttfts": "x", "itls": [[]]}, f)
        for path, words in [(bad_csv, "no column 'server_input_tokens'"), (bad_json, "field 'ttfts'"),
                            (os.path.join(work, "none.json"), "none.json")]:
            err = run("calibrate", "--from-vllm", path, *SERVER, code=2).stderr
            if words not in err or err.count("\n") != 1:
                failures.append(f"{path}: {err!r}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"from-vllm {part}: ok")

#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the main job: a
# `kvbench size` table for the catalog's main models on H100, B200 and MI300X, then
# `kvbench report`'s default assessment (a dma sweep on the best backend present, the default
# simulation sweep, sizing on the detected GPU) -> reports/out/report.html with its JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The main job needs only the kvbench binary, built in build-main/; the tests and benchmarks are
# scripts/test.sh's, in build/.
# Measured: a fresh clone's whole first run took 312 s on a 2-core x86-64 VM without a GPU.
[ -x build-main/src/kvbench ] || echo "run: the first build of kvbench takes about 4 minutes on 2 cores (more with a GPU" \
  "backend), the main job about 1 more; later runs rebuild only what changed"
scripts/build.sh --main
mkdir -p reports/out
build-main/src/kvbench size \
  --model llama-3.1-8b,llama-3.1-70b,llama-3.1-405b,qwen3-235b-a22b,deepseek-v3,gpt-oss-120b \
  --hw h100,b200,mi300x --tp auto --max-model-len 128K
build-main/src/kvbench report -o reports/out/report.html --save-json reports/out
echo "report: reports/out/report.html; JSON: reports/out/dma.json reports/out/simulate.json reports/out/size.json"

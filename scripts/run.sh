#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the main job: a
# `kvbench size` table for the catalog's main models on H100, B200 and MI300X, and the default
# `kvbench simulate` sweep (CPU tier sizes against no offloading), each with its JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
mkdir -p reports/out
build/src/kvbench size \
  --model llama-3.1-8b,llama-3.1-70b,llama-3.1-405b,qwen3-235b-a22b,deepseek-v3,gpt-oss-120b \
  --hw h100,b200,mi300x --tp auto --max-model-len 128K \
  --output reports/out/size.json
build/src/kvbench simulate chat-multi-turn --output reports/out/simulate.json
echo "JSON: reports/out/size.json reports/out/simulate.json"

#!/usr/bin/env bash
# Where --model can come from (issue 13, section 4): a model directory as downloaded, a Hugging
# Face id found in the local hub cache ($HF_HOME/hub/models--ORG--NAME/snapshots/*/config.json,
# never the network), or a catalog model's id; the printed `vllm serve` names what the user gave.
# usage: model_sources_test.sh KVBENCH DATA_DIR
set -u
bin=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A model directory: its config.json is read and vllm serve gets the directory.
mkdir -p "$work/Qwen2.5-7B-Instruct-AWQ"
cp "$data/qwen2.5-7b-awq.config.json" "$work/Qwen2.5-7B-Instruct-AWQ/config.json"
out=$("$bin" size --model "$work/Qwen2.5-7B-Instruct-AWQ" --ctx 32K 2>&1) || fail "model directory exited $?: $out"
grep -q "weights 5.19 GiB" <<<"$out" || fail "model directory: the config.json was not read: $out"
grep -q "^vllm serve $work/Qwen2.5-7B-Instruct-AWQ " <<<"$out" || fail "model directory: vllm serve does not name it"

# A Hugging Face id in the local hub cache (the newest snapshot).
snap="$work/hf/hub/models--Qwen--Qwen2.5-7B-Instruct-AWQ/snapshots/0123abc"
mkdir -p "$snap"
cp "$data/qwen2.5-7b-awq.config.json" "$snap/config.json"
out=$(HF_HOME="$work/hf" HF_HUB_CACHE= "$bin" size --model Qwen/Qwen2.5-7B-Instruct-AWQ --ctx 32K 2>&1) ||
  fail "hub id exited $?: $out"
grep -q "weights 5.19 GiB" <<<"$out" || fail "hub id: the cached config.json was not read: $out"
grep -q "^vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ " <<<"$out" || fail "hub id: vllm serve does not name the id"

# Not cached and not in the catalog: exit 2 naming it, never a download.
out=$(HF_HOME="$work/hf" HF_HUB_CACHE= "$bin" size --model Qwen/Not-A-Model 2>&1)
[ $? -eq 2 ] || fail "an unknown id should exit 2: $out"
grep -q "Hugging Face id in the local hub cache" <<<"$out" || fail "unknown id message: $out"

# A catalog model's id, not downloaded: the catalog's figures, the id in the command.
out=$(HF_HOME="$work/hf" HF_HUB_CACHE= "$bin" size --model meta-llama/Llama-3.1-8B-Instruct --ctx 32K 2>&1) ||
  fail "catalog id exited $?: $out"
grep -q "131,072 B per token" <<<"$out" || fail "catalog id: not the catalog's llama-3.1-8b: $out"

# A directory without a config.json.
mkdir -p "$work/empty"
out=$("$bin" size --model "$work/empty" 2>&1)
[ $? -eq 2 ] || fail "a directory without config.json should exit 2"
grep -q "a directory without a config.json" <<<"$out" || fail "empty directory message: $out"
echo "model sources: all cases passed"

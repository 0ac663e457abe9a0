#!/usr/bin/env python3
"""Hardware files (issue 59), scenario keys, config.json fields and the KV dtype as a
hostile operator writes them. One case per row of the issue's table (rows 4-23 of the inputs part);
each did something wrong before the fix (refused the documented example, narrowed an overflow to a
real PCIe link, printed "0 TFLOP/s", read 010 as 8, ignored a key) and must now do what the row's
last column says: exit 2 with one 'kvbench: ' line naming the file and the key, or the right answer.

usage: hardware_and_scenario_inputs_test.py KVBENCH REPO_ROOT WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

kvbench, repo, work = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def path(name):
    return os.path.join(work, name)


def write(name, text):
    p = path(name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
    return p


def run(row, args, code, *needles, cwd=work):
    """Runs kvbench; checks the exit code, one 'kvbench: ' line on stderr for errors, and each needle."""
    try:
        p = subprocess.run([kvbench] + args, capture_output=True, text=True, timeout=120, cwd=cwd)
    except subprocess.TimeoutExpired:
        failures.append(f"row {row}: still running after 120 s: {args}")
        return None
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    if p.returncode != code:
        failures.append(f"row {row}: {args}: exit {p.returncode}, expected {code}: {p.stderr[-500:]}")
    elif code == 2 and (len(lines) != 1 or not lines[0].startswith("kvbench: ")):
        failures.append(f"row {row}: {args}: stderr is not one 'kvbench: ' line: {lines[:3]}")
    else:
        for needle in needles:
            if needle not in p.stderr + p.stdout:
                failures.append(f"row {row}: {args}: output lacks '{needle}': {p.stderr[-500:]}")
    return p


# The hardware file docs/size.md shows, copied verbatim; every row's hardware file is it with one
# line replaced or added.
with open(os.path.join(repo, "docs", "size.md")) as f:
    doc = f.read()
section = doc[doc.index("## Hardware files"):]
example = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def hw_file(name, old, new):
    assert old in example, old
    return write(name, example.replace(old, new))


SIZE = ["size", "--model", "llama-3.1-8b", "--hw"]

SCENARIO = """name: numbers
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 8GiB
{extra}workload:
  requests: 20
  arrival: {{process: poisson, rate: 4}}
  prompt: 256
  output: 8
"""

BASE = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 32,
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "max_position_embeddings": 8192, "vocab_size": 128256, "intermediate_size": 14336}

# Row 4: the documented example is read as it stands (fp4_tflops: 0 = no FP4 tensor cores).
doc_hw = write("doc-gpu.yaml", example)
p = run(4, SIZE + [doc_hw, "--json"], 0)
if p is not None and p.returncode == 0:
    hw = json.loads(p.stdout)["results"][0]["hardware"]
    if hw != "my-gpu":
        failures.append(f"row 4: the documented file's name is not in the result: {hw}")

# Row 5: PCIe figures range-checked before narrowing (2^32 + 4 is not Gen 4); every message names
# the file and the key.
f = hw_file("gen-overflow.yaml", "pcie_generation: 4", "pcie_generation: 4294967300")
run(5, SIZE + [f], 2, "gen-overflow.yaml: key 'pcie_generation' is 4294967300; expected a whole number from 1 to 6")
f = hw_file("width-overflow.yaml", "pcie_width: 16", "pcie_width: 4294967312")
run(5, SIZE + [f], 2, "width-overflow.yaml: key 'pcie_width' is 4294967312")
f = hw_file("gen-zero.yaml", "pcie_generation: 4", "pcie_generation: 0")
run(5, SIZE + [f], 2, "gen-zero.yaml: key 'pcie_generation' is 0")
f = hw_file("width-three.yaml", "pcie_width: 16", "pcie_width: 3")
run(5, SIZE + [f], 2, "width-three.yaml: key 'pcie_width' is 3; expected 1, 2, 4, 8 or 16")

# Row 6: a floor per figure, not just "positive": 1e-300 TFLOP/s or GB/s is refused naming the key.
for old, new, needle in [
        ("bf16_tflops: 362", "bf16_tflops: 1e-300", "key 'bf16_tflops' is 1e-300; expected 0.1 to 1000000 TFLOP/s"),
        ("hbm_bandwidth_gbps: 864", "hbm_bandwidth_gbps: 1e-300", "key 'hbm_bandwidth_gbps' is 1e-300; expected 10 to"),
        ("link_practical_gbps: 25", "link_practical_gbps: 1e-9", "key 'link_practical_gbps' is 1e-09; expected 0.1 to"),
        ("gpu_link_gbps: 20", "gpu_link_gbps: 1e-9", "key 'gpu_link_gbps' is 1e-09"),
        ("fp8_tflops: 733", "fp8_tflops: 1e-300", "key 'fp8_tflops' is 1e-300")]:
    f = hw_file(f"tiny-{old.split(':')[0]}.yaml", old, new)
    run(6, SIZE + [f], 2, f"tiny-{old.split(':')[0]}.yaml: {needle}")

# A dma result whose copies fit a link of 1e-9 GB/s (--link-profile): the same floor.
with open(os.path.join(repo, "tests", "data", "host-dma-profile.json")) as f:
    dma = json.load(f)


def slowed(o):
    """Every bandwidth 1e10 times lower and every time 1e10 times longer: the same copies, slower."""
    if isinstance(o, dict):
        for k, v in o.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and "gbps" in k:
                o[k] = v * 1e-10
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and k.endswith("_us"):
                o[k] = v * 1e10
            else:
                slowed(v)
    elif isinstance(o, list):
        for v in o:
            slowed(v)


slowed(dma)
slow = write("slow-link.json", json.dumps(dma))
run(6, ["simulate", write("link.yaml", SCENARIO.format(extra="")), "--no-sweep", "--link-profile", slow], 2,
    "slow-link.json': method 'ce' fits the h2d link at", "GB/s; expected at least 0.1 GB/s")

# Row 7: one number syntax: 010 is ten replicas in a scenario, --set and --sweep, as --replicas 010.
def replicas_of(row, args):
    p = run(row, args + ["--json"], 0)
    if p is None or p.returncode != 0:
        return None
    doc = json.loads(p.stdout)
    return [len(point["replicas"]) for point in doc["points"]]  # each replica's own figures


octal = write("octal.yaml", SCENARIO.format(extra="replicas: 010\n"))
plain = write("plain.yaml", SCENARIO.format(extra=""))
for args in (["simulate", octal, "--no-sweep"], ["simulate", plain, "--no-sweep", "--set", "replicas=010"],
             ["simulate", plain, "--no-sweep", "--replicas", "010"]):
    got = replicas_of(7, args)
    if got is not None and got != [10]:
        failures.append(f"row 7: {args}: {got} replicas, expected 10 (decimal)")
got = replicas_of(7, ["simulate", plain, "--sweep", "replicas=010"])
if got is not None and got != [10]:
    failures.append(f"row 7: --sweep replicas=010: {got} replicas, expected [10]")
hexa = write("hex.yaml", SCENARIO.format(extra="replicas: 0x10\n"))
run(7, ["simulate", hexa, "--no-sweep"], 2, "hex.yaml: key 'replicas' has the wrong type; expected an integer in decimal digits")

# Row 8: a fitted or measured figure without its source is refused, never silently dropped.
for key, value, needs in [("time_model_step_overhead_us", "500", "time_model_source"),
                          ("time_model_request_overhead_us", "500", "time_model_source"),
                          ("link_measured_h2d_per_copy_us", "2.5", "link_measured_source"),
                          ("link_measured_d2h_gbps", "20", "link_measured_source")]:
    f = write(f"orphan-{key}.yaml", example + f"{key}: {value}\n")
    run(8, SIZE + [f], 2, f"orphan-{key}.yaml: key '{key}' needs {needs}")
f = write("orphan-slowdown.yaml", example + "link_kernel_compute_slowdown: 1.5\n")
run(8, SIZE + [f], 2, "orphan-slowdown.yaml: key 'link_kernel_compute_slowdown' needs link_measured_source")
MEASURED = ("link_measured_source: a dma run\nlink_measured_h2d_gbps: 24\nlink_measured_d2h_gbps: 24\n"
            "link_measured_h2d_per_copy_us: 2.5\nlink_measured_d2h_per_copy_us: 2.5\n")
f = write("measured-slowdown.yaml", example + MEASURED + "link_kernel_compute_slowdown: 1.5\n")
run(8, SIZE + [f], 0)  # with its source: read

# Row 11: the copy kernel never speeds the model up: the slowdown is at least 1.
f = write("slowdown.yaml", example + MEASURED + "link_kernel_compute_slowdown: 0.001\n")
run(11, SIZE + [f], 2, "slowdown.yaml: key 'link_kernel_compute_slowdown' is 0.001; expected 1 to 100")

# Row 12: an MLA backend's block is a vLLM block size, --block-size's bound.
f = write("mla-block.yaml", example + "mla_block_size: 1048576\n")
run(12, SIZE + [f], 2, "mla-block.yaml: key 'mla_block_size' is 1048576; expected a whole number from 1 to 256")
f = write("mla-block-odd.yaml", example + "mla_block_size: 48\n")
run(12, SIZE + [f], 2, "mla-block-odd.yaml: key 'mla_block_size' is 48; expected one of 1, 8, 16")

# Row 13: a scenario's relative hardware: and model: paths are read from the scenario's folder.
write("site/gpus/doc-gpu.yaml", example)
write("site/models/config.json", json.dumps({
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 8, "hidden_size": 1024,
    "num_attention_heads": 8, "num_key_value_heads": 2, "max_position_embeddings": 8192, "vocab_size": 32000,
    "intermediate_size": 4096, "torch_dtype": "bfloat16"}))
site = write("site/scenario.yaml", SCENARIO.format(extra="").replace("hardware: h100", "hardware: gpus/doc-gpu.yaml")
             .replace("model: llama-3.1-8b", "model: models/config.json"))
p = run(13, ["simulate", site, "--no-sweep", "--json"], 0, cwd="/")
if p is not None and p.returncode == 0 and "my-gpu" not in p.stdout:
    failures.append("row 13: the scenario's own hardware file (gpus/doc-gpu.yaml) was not read")
missing = write("site/missing.yaml", SCENARIO.format(extra="").replace("hardware: h100", "hardware: gpus/none.yaml"))
run(13, ["simulate", missing, "--no-sweep"], 2, "missing.yaml: key 'hardware' names 'gpus/none.yaml'", cwd="/")
missing = write("site/no-model.yaml", SCENARIO.format(extra="").replace("model: llama-3.1-8b", "model: ./none.json"))
run(13, ["simulate", missing, "--no-sweep"], 2, "no-model.yaml: key 'model' names './none.json'", cwd="/")

# Row 18: a second YAML document is refused, not ignored.
f = write("two-docs.yaml", example + "---\nbf16_tflops: 1\n")
run(18, SIZE + [f], 2, "two-docs.yaml: holds a second YAML document")
f = write("two-scenarios.yaml", SCENARIO.format(extra="") + "---\nname: other\n")
run(18, ["simulate", f, "--no-sweep"], 2, "two-scenarios.yaml: holds a second YAML document")

# Row 19: --hw names what the path is.
os.makedirs(path("hwdir.yaml"), exist_ok=True)
run(19, SIZE + [path("hwdir.yaml")], 2, "is a directory, not a hardware file")
os.mkfifo(path("hw.fifo"))
run(19, SIZE + [path("hw.fifo")], 2, "is a FIFO (a named pipe), not a hardware file")
run(19, SIZE + ["/dev/zero"], 2, "'/dev/zero': is a character device, not a hardware file")
run(19, SIZE + [path("absent.yaml")], 2, "no such hardware file")

# Row 20: a quantized torch_dtype names the file and the field.
for dtype in ("float8_e4m3fn", "int8"):
    f = write(f"dtype-{dtype}.json", json.dumps(dict(BASE, torch_dtype=dtype)))
    run(20, ["size", "--model", f, "--hw", "h100"], 2,
            f"dtype-{dtype}.json: field 'torch_dtype' is '{dtype}'; expected bfloat16, float16 or float32")

# Row 21: quantization_config read from the fields that define the format, not the method's name
# (before: W4A16 and NVFP4 sized as fp8, 8.46 GiB; 8-bit GPTQ and bitsandbytes as 4-bit, 5.33;
# fbgemm_fp8 and an unknown method as bf16, 14.96, without a word). By hand for BASE: 32 layers of
# attention (4096 x 128 x (2 x 32 + 2 x 8)) and MLP (3 x 4096 x 14,336) at the format's bits; the
# embedding and the LM head (2 x 128,256 x 4096) at 16 bits. The config_groups / quant_algo / bits /
# load_in_8bit layouts: vLLM model_executor/layers/quantization/ (compressed_tensors, modelopt.py,
# gptq.py, bitsandbytes.py, fbgemm_fp8.py).
LINEAR = 32 * (4096 * 128 * (2 * 32 + 2 * 8) + 3 * 4096 * 14336)
EMBEDDINGS = 2 * 128256 * 4096
QUANTIZED = {
    "w4a16": ({"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head"],
               "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": None,
                                             "weights": {"num_bits": 4, "type": "int", "symmetric": True,
                                                         "strategy": "group", "group_size": 128}}}},
              "int4-g128", 4 + 16 / 128),  # a bf16 scale per group of 128
    "nvfp4": ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
               "exclude_modules": ["lm_head"]}, "nvfp4", 4 + 8 / 16),  # E2M1 + an E4M3 scale per 16
    "gptq-8bit": ({"quant_method": "gptq", "bits": 8, "group_size": 128, "desc_act": False, "sym": True},
                  "gptq-int8-g128", 8 + (16 + 8) / 128),  # a scale and an 8-bit zero per 128
    "bnb-8bit": ({"quant_method": "bitsandbytes", "_load_in_8bit": True, "load_in_8bit": True,
                  "_load_in_4bit": False, "load_in_4bit": False, "llm_int8_threshold": 6.0},
                 "bnb-int8", 8),
    "fbgemm-fp8": ({"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                    "modules_to_not_convert": ["lm_head"]}, "fp8", 8),
}
for name, (quantization, dtype, bits) in QUANTIZED.items():
    f = write(f"quant-{name}.json", json.dumps(dict(BASE, torch_dtype="bfloat16", quantization_config=quantization)))
    gib = (LINEAR * bits / 8 + EMBEDDINGS * 2) / 2**30
    run(21, ["size", "--model", f, "--hw", "h100"], 0, f"weights {gib:.2f} GiB ({dtype} per-rank share)")
f = write("quant-unknown.json", json.dumps(dict(BASE, torch_dtype="bfloat16",
                                                quantization_config={"quant_method": "hqq", "nbits": 4})))
run(21, ["size", "--model", f, "--hw", "h100"], 2,
    "quant-unknown.json: quantization_config.quant_method is 'hqq', a method kvbench does not size; "
    "expected fp8, fbgemm_fp8, compressed-tensors, modelopt, gptq, awq, bitsandbytes or mxfp4")

# Row 22: layer_types must list every layer, as a hybrid pattern must.
f = write("layer-types.json", json.dumps(dict(BASE, torch_dtype="bfloat16", sliding_window=4096,
                                              layer_types=["sliding_attention", "full_attention"] * 2)))
run(22, ["size", "--model", f, "--hw", "h100"], 2,
    "layer-types.json: field 'layer_types' has 4 entries but num_hidden_layers is 32")

# Row 23: fp8_ds_mla is DeepSeek's sparse-MLA cache format; a GQA model is refused.
p = run(23, ["size", "--model", "llama-3.1-8b", "--hw", "h100", "--kv-cache-dtype", "fp8_ds_mla"], 2,
        "--kv-cache-dtype fp8_ds_mla is only for sparse-MLA models", "GQA/MHA attention")
if p is not None and "vllm serve" in p.stdout:
    failures.append("row 23: a vllm serve line was printed for fp8_ds_mla on a GQA model")

for failure in failures:
    print("FAIL:", failure)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)

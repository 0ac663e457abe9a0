#!/usr/bin/env python3
"""deploy/kubernetes/kvbench-node-check.yaml checks the node, and the node passes (issue 34 §3).

The DaemonSet mounts the host's /proc, /sys, cgroup root and /dev/shm read-only under /host and runs
`kvbench doctor --root /host`. This test reads the manifest as text (Debian's python3 has no YAML
library; the manifest writes its env and mounts as one-line flow mappings, which is what it reads)
and fails when the manifest drifts from what doctor reads:

* every tree doctor reads under --root (proc, sys, sys/fs/cgroup, dev/shm) is mounted there,
  read-only, from the same path on the host; and the container's own /dev/shm is the host's too,
  since doctor takes /dev/shm's size from proc/mounts, which is the reading process's mount table;
* the container is not privileged: containerd gives an unprivileged container its own cgroup
  namespace on cgroup v2, which is what makes proc/self/cgroup read "/" (the node's root cgroup);
* the manifest's own doctor command (its env values substituted, --root pointed at a recorded tree,
  -o at a temporary file) exits 0 with no failed check on tests/data/nodes/daemonset-node (the
  pod-limit node as those mounts show it) and on tests/data/nodes/pod-limit;
* a secondary tier's directory, commented out in the manifest (a read-write hostPath mount and
  KVBENCH_TIER_DIR), when uncommented and set, reaches doctor as --tier-dir and its checks run;
* the manifest's sed turns doctor's host="<--root>" label into the node's name on every line.

usage: daemonset_test.py KVBENCH MANIFEST NODES_DIR
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

kvbench, manifest, nodes = sys.argv[1:4]
text = open(manifest).read()
failures = []

env = dict(re.findall(r'\{name: (\w+), value: "([^"]*)"\}', text))
mounts = re.findall(r"\{name: ([\w-]+), mountPath: ([^,}\s]+)(, readOnly: true)?\}", text)
host_paths = dict(re.findall(r"- name: ([\w-]+)\s*\n\s*hostPath: \{path: ([^,}\s]+)", text))
doctor_lines = [line.strip() for line in text.splitlines() if line.strip().startswith("kvbench doctor ")]
sed_lines = [line.strip() for line in text.splitlines() if line.strip().startswith("sed ")]
if len(doctor_lines) != 1 or len(sed_lines) != 1:
    sys.exit(f"FAIL: expected one 'kvbench doctor' line and one 'sed' line in {manifest}, "
             f"found {len(doctor_lines)} and {len(sed_lines)}")



def doctor_args(overrides):
    """The doctor command's arguments as the shell gives them: up to '||', the manifest's env (and
    overrides) in the environment, kvbench a function that prints what it was given."""
    script = 'kvbench() { printf "%s\\0" "$@"; }\n' + doctor_lines[0].split("||")[0]
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=30,
                          env={"PATH": os.environ["PATH"], **env, **overrides})
    if done.returncode != 0:
        sys.exit(f"FAIL: the manifest's doctor line does not run in sh: {done.stderr.strip()}")
    return done.stdout.split("\0")[:-1]


args = doctor_args({})
unset = sorted(set(re.findall(r"\$\{?(\w+)", doctor_lines[0])) - set(env))
if unset:
    failures.append(f"doctor arguments name variables the manifest does not set: {unset}")
if "--tier-dir" in args:
    failures.append("the manifest checks a secondary tier's directory by default: KVBENCH_TIER_DIR must be \"\"")


def value_of(flag):
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None


root, output = value_of("--root"), value_of("-o")
if root is None or output is None:
    sys.exit(f"FAIL: the manifest's doctor command has no --root or no -o: {doctor_lines[0]}")

# The mounts doctor's reads need (src/doctor/node_facts.cpp reads each under --root).
mounted = {path: (name, bool(ro)) for name, path, ro in mounts}
for tree in ("/proc", "/sys", "/sys/fs/cgroup", "/dev/shm"):
    where = root.rstrip("/") + tree
    if where not in mounted:
        failures.append(f"nothing is mounted at {where}: doctor --root {root} reads the host's {tree} there")
        continue
    name, read_only = mounted[where]
    if host_paths.get(name) != tree:
        failures.append(f"{where} mounts volume {name} (host path {host_paths.get(name)}), not the host's {tree}")
    if not read_only:
        failures.append(f"{where} is not mounted readOnly: true")
if host_paths.get(mounted.get("/dev/shm", ("", False))[0]) != "/dev/shm":
    failures.append("the container's /dev/shm is not the host's: doctor reads /dev/shm's size from "
                    f"{root}/proc/mounts, the container's own mount table")
if re.search(r"privileged:\s*true", text):
    failures.append("the container is privileged: it would share the host's cgroup namespace and doctor "
                    "would read the pod's own cgroup limit")


def run_doctor(tree, out, argv_in=None):
    given = args if argv_in is None else argv_in
    argv = [kvbench] + [tree if a == root and given[i - 1] == "--root" else out if a == output else a
                        for i, a in enumerate(given)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return argv, done


with tempfile.TemporaryDirectory() as tmp:
    for fixture in ("daemonset-node", "pod-limit"):
        tree = os.path.join(nodes, fixture)
        out = os.path.join(tmp, fixture + ".prom")
        argv, done = run_doctor(tree, out)
        shown = " ".join(argv[1:])
        if done.returncode not in (0, 1) or not os.path.exists(out):
            failures.append(f"{fixture}: kvbench {shown} exited {done.returncode}: {done.stderr.strip()}")
            continue
        prom = open(out).read()
        status = re.findall(r'^kvbench_doctor_check_status\{host="([^"]*)",check="([^"]*)"\} (-?\d+)$', prom, re.M)
        if not status:
            failures.append(f"{fixture}: no kvbench_doctor_check_status series in {out}")
        failed = [check for _, check, v in status if v == "2"]
        if done.returncode != 0 or failed:
            failures.append(f"{fixture}: kvbench {shown} exited {done.returncode}; failed checks: {failed}")
            continue
        # The manifest's sed, on this output labelled as the pod labels it (host="<--root>").
        as_pod = prom.replace(f'host="{tree}"', f'host="{root}"')
        pod_file = os.path.join(tmp, fixture + "-pod.prom")
        open(pod_file, "w").write(as_pod)
        sed = sed_lines[0].replace("$1", "doctor").split(">")[0]
        sed = sed.replace(f'"{output}"', shlex.quote(pod_file)).replace(output, shlex.quote(pod_file))
        relabelled = subprocess.run(["sh", "-c", sed], capture_output=True, text=True, timeout=30,
                                    env={**os.environ, "NODE_NAME": "gpu-node-7"})
        series = [l for l in relabelled.stdout.splitlines() if l.startswith("kvbench_doctor_check")]
        wrong = [l for l in series if 'host="gpu-node-7"' not in l]
        if relabelled.returncode != 0 or not series or wrong:
            failures.append(f"{fixture}: the manifest's sed does not label every series host=\"$NODE_NAME\" "
                            f"(exit {relabelled.returncode}; first unlabelled: {wrong[:1]})")
        print(f"{fixture}: kvbench {shown}: exit 0, {len(status)} checks, none failed")


# A secondary tier's directory (issue 55 item 4): the manifest carries it commented out, a mount and
# a hostPath volume named tier-dir, and KVBENCH_TIER_DIR. Uncommented, the mount is read-write (doctor
# creates one probe file) at the path KVBENCH_TIER_DIR's comment names, and the doctor line passes it
# as --tier-dir (with --tier-dir-size from KVBENCH_TIER_DIR_SIZE); run on a recorded node with a real
# directory standing in for the mount, its tier-dir checks run and none fails, and a missing one
# fails the tier-dir check (exit 1: published as a failed check, not as "could not check").
tier_mount = re.search(r"^(\s*)# (- \{name: tier-dir, mountPath: ([^,}\s]+)(, readOnly: true)?\})$", text, re.M)
tier_volume = re.search(r"^(\s*)# (- name: tier-dir)\n\s*#(\s+hostPath: \{path: ([^,}\s]+), type: (\w+)\})$",
                        text, re.M)
tier_comment = text[:text.find("{name: KVBENCH_TIER_DIR,")]
if "KVBENCH_TIER_DIR" not in env or "KVBENCH_TIER_DIR_SIZE" not in env:
    failures.append("the manifest's env has no KVBENCH_TIER_DIR or KVBENCH_TIER_DIR_SIZE")
elif tier_mount is None or tier_volume is None:
    failures.append("no commented tier-dir mount and hostPath volume in the manifest")
else:
    tier_path = tier_mount.group(3)
    if tier_mount.group(4):
        failures.append("the tier-dir mount is readOnly: doctor's O_DIRECT probe creates a file there")
    if f"set {tier_path} here" not in tier_comment[-800:]:
        failures.append(f"KVBENCH_TIER_DIR's comment does not name the tier-dir mount's path {tier_path}")
    if tier_volume.group(5) != "Directory":
        failures.append(f"the tier-dir volume's hostPath type is {tier_volume.group(5)}, not Directory")
    wired = doctor_args({"KVBENCH_TIER_DIR": tier_path, "KVBENCH_TIER_DIR_SIZE": "1MiB"})
    if f"--tier-dir {tier_path} --tier-dir-size 1MiB" not in " ".join(wired):
        failures.append(f"with KVBENCH_TIER_DIR set, the doctor line gives {wired}")
    uncommented = text.replace(tier_mount.group(0), tier_mount.group(1) + tier_mount.group(2))
    uncommented = uncommented.replace(tier_volume.group(0), tier_volume.group(1) + tier_volume.group(2) + "\n" +
                                      tier_volume.group(1) + tier_volume.group(3)[1:])  # "# " off
    try:  # a YAML parser where the Python has one (Debian's python3-yaml; not in the base image)
        import yaml
        spec = yaml.safe_load(uncommented)["spec"]["template"]["spec"]
        if {"name": "tier-dir", "mountPath": tier_path} not in spec["containers"][0]["volumeMounts"] or \
                not any(v["name"] == "tier-dir" and "hostPath" in v for v in spec["volumes"]):
            failures.append("uncommented, the manifest's YAML has no tier-dir mount and volume")
    except ImportError:
        pass
    with tempfile.TemporaryDirectory() as tmp:
        tier = os.path.join(tmp, "tier")
        os.makedirs(tier)
        tree = os.path.join(nodes, "daemonset-node")
        for stand_in, code in ((tier, 0), (os.path.join(tmp, "not-mounted"), 1)):
            out = os.path.join(tmp, "tier.prom")
            argv, done = run_doctor(tree, out, [stand_in if a == tier_path else a for a in wired])
            prom = open(out).read() if os.path.exists(out) else ""
            status = dict(re.findall(r'^kvbench_doctor_check_status\{host="[^"]*",check="(tier-dir[^"]*)"\} (-?\d+)$',
                                     prom, re.M))
            expected = {"tier-dir": "0" if code == 0 else "2"}
            if code == 0:
                expected["tier-dir space"] = "0"
            wrong = {k: status.get(k) for k, v in expected.items() if status.get(k) != v}
            failed = [k for k, v in status.items() if v == "2"]
            if done.returncode != code or len(status) < 4 or wrong or (code == 0 and failed):
                failures.append(f"tier dir {stand_in}: kvbench {' '.join(argv[1:])} exited {done.returncode} "
                                f"(expected {code}); tier-dir checks {status}")
            else:
                print(f"tier dir {stand_in}: exit {code}, tier-dir checks {status}")


# A run that fails after an earlier success (issue 59 row 25): the manifest's loop, run twice with a
# kvbench that passes and then cannot check, must replace the passing files with failing series and
# a timestamp, not leave the earlier pass for node-exporter to keep exporting.
script = re.search(r"args:\n\s*- \|\n(.*?)\n\s*resources:", text, re.S)
if script is None:
    failures.append("no args script in the manifest")
else:
    body = "\n".join(line[14:] for line in script.group(1).splitlines())
    with tempfile.TemporaryDirectory() as tmp:
        textfile, work, bin_dir = (os.path.join(tmp, d) for d in ("textfile", "work", "bin"))
        for d in (textfile, work, bin_dir):
            os.makedirs(d)
        stub = os.path.join(bin_dir, "kvbench")
        open(stub, "w").write("""#!/bin/sh
# kvbench that passes GOOD_PASSES passes, then cannot check (doctor exit 2, dma exit 3): no metrics.
out=; prev=; for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
n=$(cat "$STATE" 2>/dev/null || echo 0)
if [ "$1" = doctor ]; then n=$((n + 1)); echo $n > "$STATE"; fi
if [ "$n" -le "$GOOD_PASSES" ]; then
  [ "$1" = doctor ] && echo 'kvbench_doctor_check_status{host="/host",check="shm"} 0' > "$out"
  [ "$1" = dma ] && echo 'kvbench_dma_median_gbps{method="ce"} 50' > "$out"
  exit 0
fi
echo "kvbench: error: cannot check" >&2
[ "$1" = doctor ] && exit 2
exit 3
""")
        os.chmod(stub, 0o755)
        loop = (body.replace("while true; do", "for pass in 1 2; do").replace("/textfile/", textfile + "/")
                .replace("/tmp/kvbench_", work + "/kvbench_"))
        env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"], "NODE_NAME": "gpu-node-7",
               "KVBENCH_INTERVAL_S": "0", "KVBENCH_TIER_GIB": "64", "STATE": os.path.join(tmp, "n"),
               "GOOD_PASSES": "1"}
        # Both passes good: the metrics, relabelled, and up 1 (so the failing case below is not the only one).
        done = subprocess.run(["sh", "-c", loop], capture_output=True, text=True, timeout=60,
                              env={**env, "GOOD_PASSES": "2"})
        good = open(os.path.join(textfile, "kvbench_doctor.prom")).read() if done.returncode == 0 else ""
        for line in ('kvbench_doctor_check_status{host="gpu-node-7",check="shm"} 0',
                     'kvbench_node_check_up{host="gpu-node-7",run="doctor",exit_code="0"} 1'):
            if line not in good:
                failures.append(f"two good passes: {line} not in the doctor file (exit {done.returncode})")
        os.remove(env["STATE"])
        done = subprocess.run(["sh", "-c", loop], capture_output=True, text=True, timeout=60, env=env)
        doctor = open(os.path.join(textfile, "kvbench_doctor.prom")).read() if done.returncode == 0 else ""
        dma = open(os.path.join(textfile, "kvbench_dma.prom")).read() if done.returncode == 0 else ""
        expected = [
            (doctor, 'kvbench_doctor_check_status{host="gpu-node-7",check="kvbench doctor"} 2'),
            (doctor, 'kvbench_node_check_up{host="gpu-node-7",run="doctor",exit_code="2"} 0'),
            (doctor, 'kvbench_node_check_timestamp_seconds{host="gpu-node-7",run="doctor"} '),
            (dma, 'kvbench_node_check_up{host="gpu-node-7",run="dma",exit_code="3"} 0'),
            (dma, 'kvbench_node_check_timestamp_seconds{host="gpu-node-7",run="dma"} '),
        ]
        missing = [line for where, line in expected if line not in where]
        stale = [m for m in ('check="shm"', "kvbench_dma_median_gbps") if m in doctor + dma]
        if done.returncode != 0 or missing or stale:
            failures.append(f"a failed pass after a good one: exit {done.returncode} {done.stderr[-300:]}; "
                            f"missing {missing}; stale series kept: {stale}")
        else:
            print("a failed pass after a good one: the files hold failing series and a timestamp, no stale pass")

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"daemonset: {manifest} mounts what doctor --root {root} reads, and its doctor command passes "
      "on the recorded nodes")

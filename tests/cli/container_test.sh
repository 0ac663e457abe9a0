#!/usr/bin/env bash
# The shipped container image builds and answers (issue 34 §3): where docker or podman reaches a
# daemon (or, for podman, its local store), builds deploy/docker/Dockerfile.cuda from the repository
# root and runs, in the image,
#   size --model llama-3.1-8b --ctx 32k          (the tier recommendation and the vllm serve line)
#   simulate chat-multi-turn ...                 (a scenario from the catalog embedded in the binary)
#   doctor --root /host ...                      (the DaemonSet's node check, on the recorded node
#                                                 tests/data/nodes/daemonset-node mounted at /host)
# Without an engine, or with a client whose daemon is not reachable, it says so and exits 77, which
# ctest reports as skipped (SKIP_RETURN_CODE in tests/cli/CMakeLists.txt).
#
# usage: container_test.sh REPO_ROOT
#   KVBENCH_CONTAINER_ENGINE    docker or podman (default: the first of them that answers `info`)
#   KVBENCH_CONTAINER_VARIANTS  the Dockerfiles to build, e.g. "cuda rocm" (default: cuda; the ROCm
#                               images are much larger)
# The images are kept (kvbench-test:VARIANT), so a second run rebuilds only what changed.
set -euo pipefail
root=$(cd "$1" && pwd)
skipped=77

engine=""
for candidate in ${KVBENCH_CONTAINER_ENGINE:-docker podman}; do
  command -v "$candidate" >/dev/null 2>&1 || continue
  # `info` needs the daemon; bounded, since a client pointed at an unreachable host can hang.
  if timeout 60 "$candidate" info >/dev/null 2>&1; then
    engine=$candidate
    break
  fi
done
if [ -z "$engine" ]; then
  echo "container: skipped: no container engine reachable (docker/podman)"
  exit $skipped
fi

fail() {
  echo "FAIL: container: $*" >&2
  exit 1
}

for variant in ${KVBENCH_CONTAINER_VARIANTS:-cuda}; do
  dockerfile=$root/deploy/docker/Dockerfile.$variant
  [ -f "$dockerfile" ] || fail "no $dockerfile (KVBENCH_CONTAINER_VARIANTS=$variant)"
  image=kvbench-test:$variant
  echo "container: $engine build -f deploy/docker/Dockerfile.$variant -t $image ."
  # A smoke test: one GPU architecture (sm_90 / gfx942) keeps the compile to minutes on a small
  # machine; the shipped default builds them all.
  arch_arg=(--build-arg CUDA_ARCHITECTURES=90)
  [ "$variant" = rocm ] && arch_arg=(--build-arg HIP_ARCHS=gfx942)
  "$engine" build "${arch_arg[@]}" -f "$dockerfile" -t "$image" "$root" ||
    fail "$engine build of Dockerfile.$variant failed"

  out=$("$engine" run --rm "$image" size --model llama-3.1-8b --ctx 32k) ||
    fail "$image size --model llama-3.1-8b --ctx 32k exited $?"
  grep -Eq "recommended --kv-offloading-size [0-9]+" <<<"$out" ||
    fail "$image size printed no recommendation: $(head -3 <<<"$out")"
  grep -q "^vllm serve meta-llama/Llama-3.1-8B-Instruct" <<<"$out" ||
    fail "$image size printed no vllm serve command"
  echo "container: $image size --model llama-3.1-8b --ctx 32k: $(grep -Eo "recommended --kv-offloading-size [0-9]+" <<<"$out")"

  out=$("$engine" run --rm "$image" simulate chat-multi-turn --requests 20 --no-sweep) ||
    fail "$image simulate chat-multi-turn exited $?"
  grep -q "^20 requests per point" <<<"$out" || fail "$image simulate printed no summary"

  # The DaemonSet's doctor command on a recorded node mounted where the DaemonSet mounts the node.
  # label=disable: no SELinux relabelling of the repository's files (docker and podman).
  out=$("$engine" run --rm --security-opt label=disable \
    -v "$root/tests/data/nodes/daemonset-node:/host:ro" "$image" doctor --root /host --tier-size 64) ||
    fail "$image doctor --root /host --tier-size 64 exited $?"
  grep -q "0 failed" <<<"$out" || fail "$image doctor on the recorded node: $(tail -1 <<<"$out")"
  echo "container: $variant: built; size, simulate and doctor --root answer"
done
echo "container: all variants passed"

#!/usr/bin/env bash
# Prints ON or OFF: whether scripts/build.sh precompiles headers (cmake/Precompile.cmake). A .pch
# holds its clone's absolute paths, so files compiled with one never hit the compiler cache from
# another clone (kvb_core: 16 of 16 missed; without: 15 of 15 hit, 0.5 CPU-s instead of 43). OFF
# where ccache already holds entries to hit; ON where it is empty or absent (a fresh machine: every
# file misses anyway, and precompiled headers save about 17% of a cold build).
# KVBENCH_PCH=ON|OFF in the environment decides instead.
if [ -n "${KVBENCH_PCH:-}" ]; then echo "$KVBENCH_PCH"; exit 0; fi
cached=$(ccache --print-stats 2>/dev/null | awk '$1 == "files_in_cache" {print $2}')
if [ "${cached:-0}" -gt 0 ]; then echo OFF; else echo ON; fi

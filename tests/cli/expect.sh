#!/usr/bin/env bash
# Runs kvbench and checks its exit code and output, for tests/gpu (the CLI tests' cases are tables
# under tests/cli/cases, run by cli_case.py; tests/cli/README.md).
# usage: expect.sh KVBENCH CODE PATTERN [--stdout-json] -- ARGS...
#   PATTERN  a regex some output line must match ("" = anything); cli_case.py --inline checks it,
#            and that an error (exit 2 or 3) is one line on stderr starting with "kvbench: ".
exec python3 "$(dirname "$0")/cli_case.py" --inline "$@"

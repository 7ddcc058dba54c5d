#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: packages, configure, build, ctest.
# Usage: ./scripts/test.sh [preset]     preset: release (default), debug or asan
# With KKTDAE_PHASES set (as .ci/run sets it), each step's seconds go into CI's breakdown
# (scripts/phases.sh), with CTest's time per test group (tests' labels).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh
preset=${1:-release}

phase deps ./scripts/deps.sh
phase "$preset: configure" cmake --preset "$preset"
phase "$preset: build" cmake --build --preset "$preset"

ctest_log=$(mktemp)
trap 'rm -f "$ctest_log"' EXIT
run_ctest() {
  local rc=0
  ctest --preset "$preset" | tee "$ctest_log" || rc=$?
  # "unit = 123.45 sec*proc (300 tests)": summed over tests that ran two at a time.
  sed -n '/^Label Time Summary:/,/^$/s/^\([^ ]*\) *= *\([0-9.]*\) sec\*proc \(.*\)$/\1: \2 s \3/p' "$ctest_log" |
    while read -r line; do phase_note "$preset tests, $line"; done
  return "$rc"
}
phase "$preset: test" run_ctest

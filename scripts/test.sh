#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: packages, configure, build, ctest.
# Usage: ./scripts/test.sh [preset]     preset: release (default), debug or asan
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}

./scripts/deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"

#!/usr/bin/env bash
# Sets everything up and runs the main demo: seed 000's chapter run of kktdae-constraints
# (double pendulum, semi-implicit Euler, dt 0.005, 4000 steps, none vs Baumgarte).
# Usage: ./scripts/demo.sh [extra kktdae-constraints flags]
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
cmake --preset release
cmake --build --preset release --target kktdae-constraints
./build/release/apps/constraints/kktdae-constraints --seed 0 "$@"

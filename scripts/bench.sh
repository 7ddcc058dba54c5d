#!/usr/bin/env bash
# Builds and runs the benchmark suite (apps/bench).
#
#   scripts/bench.sh --smoke   every benchmark once, briefly, chains of at most 1000 links, plus
#                              the accuracy program at N = 10: proves they all run (for CI);
#                              prints, writes nothing to docs/
#   scripts/bench.sh           the full suite: 5 repetitions (randomly interleaved, medians),
#                              dense chains up to 200 links, sparse ones up to 100000, JSON in
#                              outputs/bench/, the accuracy comparison at N = 10, 100 and 1000
#                              (dt 0.005 s) and the variants that explain why N = 1000 stops
#                              there (dt 0.0005 s, more projection iterations, dense path), the
#                              app against the library's step (scripts/app_vs_bench.py, 3 rounds,
#                              under a minute), the analytic against the difference-quotient
#                              Newton matrices (kktdae-bench-newton, ~10 s), then scripts/bench_report.py writes
#                              docs/performance.md and docs/performance_steps.png (about 7–9
#                              minutes on 2 cores)
#
# Builds with the release preset in build/release; set KKTDAE_BENCH_BUILD_DIR to configure a
# separate Release tree instead (benchmarks only, no tests), and KKTDAE_BENCH_JOBS for the build's
# parallelism (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh

mode=full
case "${1:-}" in
  --smoke) mode=smoke ;;
  "") ;;
  *) echo "usage: scripts/bench.sh [--smoke]" >&2; exit 2 ;;
esac

phase deps ./scripts/deps.sh
jobs=${KKTDAE_BENCH_JOBS:-2}
if [[ -n ${KKTDAE_BENCH_BUILD_DIR:-} ]]; then
  build=$KKTDAE_BENCH_BUILD_DIR
  configure=(cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKKTDAE_BUILD_TESTS=OFF -DKKTDAE_BUILD_BENCHMARKS=ON)
else
  build=build/release
  configure=(cmake --preset release -DKKTDAE_BUILD_BENCHMARKS=ON)
fi
configure_out=$(mktemp)
trap 'rm -f "$configure_out"' EXIT
phase "bench: configure" "${configure[@]}" >"$configure_out"
configure_log=$(<"$configure_out")
# The MuJoCo peer (the comparison rows and the accuracy program) is optional, but a machine with
# libmujoco-dev installed must build it: a configure that silently lost it (issue 17: Debian's
# mujocoConfig.cmake needs OpenGL's headers) would drop the comparison without anyone noticing.
if grep -q "with the MuJoCo comparison" <<<"$configure_log"; then
  targets=(kktdae-bench kktdae-bench-accuracy)
else
  if dpkg-query -W -f='${Status}' libmujoco-dev 2>/dev/null | grep -q "install ok installed"; then
    echo "bench: libmujoco-dev is installed but the configure did not find MuJoCo:" >&2
    grep -i mujoco <<<"$configure_log" >&2 || true
    exit 1
  fi
  if [[ $mode == full ]]; then
    echo "bench: the full suite compares against MuJoCo: install libmujoco-dev (scripts/deps.sh)" >&2
    exit 1
  fi
  echo "bench: MuJoCo is not installed: building without the MuJoCo comparison"
  targets=(kktdae-bench)
fi
# The full run also times the app against the library (the smoke skips that row: it proves the
# benchmarks run, and building the app would cost CI more than the row tells it).
if [[ $mode == full ]]; then targets+=(kktdae-constraints kktdae-bench-newton); fi
phase "bench: build" cmake --build "$build" -j "$jobs" --target "${targets[@]}"
bench=$build/apps/bench/kktdae-bench
accuracy=$build/apps/bench/kktdae-bench-accuracy

# A subshell, so that its exits end the smoke and the phase still records them; the caller's
# errexit does not reach inside a phase, so each step says what a failure does.
smoke() (
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  "$bench" --kktdae_max_links=1000 --benchmark_min_time=0.001 --benchmark_repetitions=1 | tee "$log" || exit 1
  # A benchmark that stops with an error still lets the program exit 0: fail the smoke on one.
  if grep -q "ERROR OCCURRED" "$log"; then
    echo "bench smoke: a benchmark stopped with an error (above)" >&2
    exit 1
  fi
  if [[ ${targets[*]} == *kktdae-bench-accuracy* ]]; then
    mujoco_rows=$(grep -c '^mujoco_step/' "$log" || true)
    if ((mujoco_rows == 0)); then
      echo "bench smoke: the MuJoCo peer was built but no mujoco_step row ran" >&2
      exit 1
    fi
    "$accuracy" --links 10 >/dev/null || exit 1
    echo "bench smoke: every benchmark ($mujoco_rows MuJoCo rows) and the accuracy program ran"
  else
    echo "bench smoke: every benchmark ran (no MuJoCo peer on this machine)"
  fi
)
if [[ $mode == smoke ]]; then
  phase "bench: smoke run" smoke
  exit 0
fi

out=outputs/bench
mkdir -p "$out"
"$bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1 \
  --benchmark_out="$out/benchmarks.json" --benchmark_out_format=json 2> >(tee "$out/sanity.txt" >&2)
# The accuracy program exits 1 when our run stops early; its JSON says why and is reported.
rm -f "$out"/accuracy_N*.json
for links in 10 100 1000; do
  "$accuracy" --links "$links" >"$out/accuracy_N$links.json" || echo "accuracy N = $links: our run stopped early (see $out/accuracy_N$links.json)"
done
# Why the long chains stop at dt 0.005 (docs/performance.md): the same 5 s of motion in steps of
# 0.0005 s; 200 projection iterations instead of 20; the 100-link chain on the dense path.
accuracy_variant() {
  local name=$1
  shift
  "$accuracy" "$@" >"$out/accuracy_$name.json" || echo "accuracy $name: our run stopped early (see $out/accuracy_$name.json)"
}
accuracy_variant N1000_dt0.0005 --links 1000 --dt 0.0005 --steps 10000
accuracy_variant N1000_rk4 --links 1000 --integrator rk4
accuracy_variant N1000_iterations200 --links 1000 --projection-iterations 200
accuracy_variant N100_dense --links 100 --path dense
# The app's per-step cost against the library's step (issue 22 item 3): wall-clock, so its rounds
# spread with the machine's load; the report states the instruction ratio beside it.
rm -f "$out/app_vs_library.json"
python3 scripts/app_vs_bench.py --build "$build" --rounds 3 --json "$out/app_vs_library.json"
# Analytic against difference-quotient Newton matrices (issue 22 item 5), side by side in one
# process: its Markdown table, written whole, goes into the report with a summary computed from it.
rm -f "$out/newton_matrices.md"
"$build/apps/bench/kktdae-bench-newton" --repetitions 7 --horizon 10 >"$out/newton_matrices.md.tmp"
mv "$out/newton_matrices.md.tmp" "$out/newton_matrices.md"
python3 scripts/bench_report.py --results "$out" --docs docs

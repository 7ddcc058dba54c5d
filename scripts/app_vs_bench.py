#!/usr/bin/env python3
"""The app's cost per step against the library's step benchmark (issue 22, item 3).

Runs `kktdae-constraints --stabilization baumgarte --no-rerun` (the double pendulum, semi-implicit
Euler, Schur form, seed 000's ω = 20) for a short and a long run and divides the difference of
their CPU times (user + sys of the child) by the difference of their step counts, so that process
start-up, parsing and file writing cancel; alternates with kktdae-bench's
`limit/library/semi_implicit/schur/N:2` (the library's step of the same model, integrator and
stabilization: median CPU time of 3 repetitions). Prints one line per round and the median
ratio app / library; with --json also writes them (scripts/bench.sh's full run does, into
outputs/bench/app_vs_library.json, for scripts/bench_report.py's app row). Not run by the tests.

Usage: scripts/app_vs_bench.py [--build build/release] [--rounds 3] [--steps 400000 4000000]
                               [--json PATH]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def child_cpu_seconds(command):
    before = os.times()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, nargs=2, default=[400000, 4000000])
    parser.add_argument("--json", help="also write the rounds and the median here (written whole)")
    args = parser.parse_args()
    app = os.path.join(args.build, "apps/constraints/kktdae-constraints")
    bench = os.path.join(args.build, "apps/bench/kktdae-bench")
    short, long_ = args.steps
    if not long_ > short > 0:
        sys.exit("app_vs_bench: --steps needs 0 < short < long")
    ratios = []
    rounds = []
    with tempfile.TemporaryDirectory() as out:
        for round_ in range(1, args.rounds + 1):
            times = []
            for steps in (short, long_):
                times.append(child_cpu_seconds([app, "--stabilization", "baumgarte", "--no-rerun", "--steps",
                                                str(steps), "--out", os.path.join(out, str(steps))]))
            app_us = (times[1] - times[0]) / (long_ - short) * 1e6
            result = os.path.join(out, "bench.json")
            subprocess.run([bench, "--benchmark_filter=^limit/library/semi_implicit/schur/N:2$",
                            "--benchmark_repetitions=3", "--benchmark_min_time=0.2",
                            "--benchmark_report_aggregates_only=true", f"--benchmark_out={result}",
                            "--benchmark_out_format=json"], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            with open(result) as f:
                median = next(b for b in json.load(f)["benchmarks"] if b.get("aggregate_name") == "median")
            scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[median["time_unit"]]
            lib_us = median["cpu_time"] * scale
            ratios.append(app_us / lib_us)
            rounds.append({"app_us_per_step": app_us, "library_us_per_step": lib_us, "ratio": ratios[-1]})
            print(f"round {round_}: app {app_us:.3f} µs per step, library step {lib_us:.3f} µs, "
                  f"app / library {ratios[-1]:.2f}")
    load = os.getloadavg()[0]
    print(f"median app / library: {statistics.median(ratios):.2f} (load average {load:.1f})")
    if args.json:
        record = {
            "app": "kktdae-constraints --stabilization baumgarte --no-rerun",
            "library_benchmark": "limit/library/semi_implicit/schur/N:2",
            "steps": [short, long_],
            "rounds": rounds,
            "median_app_us_per_step": statistics.median(r["app_us_per_step"] for r in rounds),
            "median_library_us_per_step": statistics.median(r["library_us_per_step"] for r in rounds),
            "median_ratio": statistics.median(ratios),
            "load_average": load,
        }
        directory = os.path.dirname(os.path.abspath(args.json))
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, suffix=".tmp") as f:
            json.dump(record, f, indent=2)
            f.write("\n")
        os.replace(f.name, args.json)


if __name__ == "__main__":
    main()

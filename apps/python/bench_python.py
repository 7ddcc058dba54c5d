#!/usr/bin/env python3
"""The Python bindings' two performance targets, measured side by side (docs/python.md):

1. a shipped model simulated from Python with the in-C++ recording against the same run through
   simulate() in C++ with the same recording (kktdae-bench's simulate_recorded/…/N:2): 4000
   semi-implicit steps of the double pendulum; target ≤ 1.1×;
2. a model written in Python (tests/python/py_models.py's PyPendulumChain, Baumgarte ω = 20,
   recording every step) against seed 000's numpy script on the same run; aim ≥ 5× faster. Both
   are timed at two step counts, so a step's cost excludes start-up. cProfile then says where a
   Python model's step goes.

    python3 apps/python/bench_python.py --bench build/release/apps/bench/kktdae-bench \
        --seed-script ../shared/seeds/restored/constraints.py [--repetitions 9] [--json out.json]
"""
import argparse
import cProfile
import json
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import kktdae

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from py_models import PyDoublePendulum, PyPendulumChain  # noqa: E402

TILT = float(np.random.default_rng(0).uniform(-0.05, 0.05))


def median_seconds(function, repetitions):
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def cpp_recorded_microseconds(bench, repetitions):
    done = subprocess.run([bench, "--benchmark_filter=^simulate_recorded/", f"--benchmark_repetitions={repetitions}",
                           "--benchmark_format=json", "--benchmark_report_aggregates_only=true"],
                          capture_output=True, text=True, check=True)
    runs = json.loads(done.stdout)["benchmarks"]
    median = next(b for b in runs if b.get("aggregate_name") == "median")
    assert median["time_unit"] == "us"
    return median["real_time"]


def python_recorded_microseconds(repetitions):
    chain = kktdae.PendulumChain(2)
    state = chain.initial_state(TILT)
    options = kktdae.SimulationOptions(integrator="semi_implicit", dt=0.005, steps=4000)
    kktdae.simulate(chain, state, options)  # warm-up
    return 1e6 * median_seconds(lambda: kktdae.simulate(chain, state, options), repetitions)


def python_model_step_microseconds(model, repetitions, short=400, long=2000):
    state = kktdae.PendulumChain(2).initial_state(TILT)
    stab = kktdae.Stabilization.critical(20.0)

    def run(steps):
        return lambda: kktdae.simulate(model, state, kktdae.SimulationOptions(steps=steps, stabilization=stab))

    a = median_seconds(run(short), repetitions)
    b = median_seconds(run(long), repetitions)
    return 1e6 * (b - a) / (long - short)


def seed_script_step_microseconds(script, repetitions, short=400, long=2000):
    def run(steps):
        with tempfile.TemporaryDirectory() as out:
            return lambda: subprocess.run([sys.executable, str(script), "--no-rerun", "--stabilization", "baumgarte",
                                           "--steps", str(steps), "--out", out], capture_output=True, check=True)

    a = median_seconds(run(short), repetitions)
    b = median_seconds(run(long), repetitions)
    return 1e6 * (b - a) / (long - short)


def python_model_profile(model, steps=2000):
    """Per step: time inside the model's Python methods (their own lines, numpy included) and the rest."""
    state = kktdae.PendulumChain(2).initial_state(TILT)
    options = kktdae.SimulationOptions(steps=steps, stabilization=kktdae.Stabilization.critical(20.0))
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    kktdae.simulate(model, state, options)
    profile.disable()
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    methods = {}
    for (filename, _, name), (_, calls, _, cumulative, _) in stats.items():
        if filename.endswith("py_models.py") and not name.startswith("_"):
            methods[name] = (calls / steps, 1e6 * cumulative / steps)
    return 1e6 * total / steps, methods


def empty_call_microseconds(calls=20000):
    """The trampoline's own cost per Python call: a run of a model whose methods only return stored
    arrays (so no model arithmetic is timed) minus the same run of the C++ chain, divided by the
    four Python calls of each step (bias, constraint, constraint_jacobian, constraint_bias)."""
    class Stored(PyDoublePendulum):
        def __init__(self, q, v):
            super().__init__()
            self._phi, self._J = super().constraint(q, 0.0), super().constraint_jacobian(q, 0.0)
            self._gamma = super().constraint_bias(q, v, 0.0)

        def constraint(self, q, t):
            return self._phi

        def constraint_jacobian(self, q, t):
            return self._J

        def constraint_bias(self, q, v, t):
            return self._gamma

    chain = kktdae.PendulumChain(2)
    state = chain.initial_state(TILT)
    model = Stored(state.q, state.v)
    steps = calls // 4
    opts = kktdae.SimulationOptions(steps=steps)
    py = median_seconds(lambda: kktdae.simulate(model, state, opts, record=False), 5)
    cpp = median_seconds(lambda: kktdae.simulate(chain, state, opts, record=False), 5)
    return 1e6 * (py - cpp) / (4 * steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", help="kktdae-bench (for target 1)")
    parser.add_argument("--seed-script", type=Path, help="seed 000's constraints.py (for target 2)")
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report = {}
    if args.bench:
        # Interleaved: C++, Python, C++, Python, so a change in the machine's load hits both.
        cpp, py = [], []
        for _ in range(3):
            cpp.append(cpp_recorded_microseconds(args.bench, args.repetitions))
            py.append(python_recorded_microseconds(args.repetitions))
        report["recorded_run"] = {"cpp_us": statistics.median(cpp), "python_us": statistics.median(py),
                                  "ratio": statistics.median(py) / statistics.median(cpp)}
        r = report["recorded_run"]
        print(f"target 1: 4000 semi-implicit steps with recording: C++ {r['cpp_us']:.0f} µs, "
              f"Python {r['python_us']:.0f} µs, ratio {r['ratio']:.3f} (target ≤ 1.1)")
    generic = python_model_step_microseconds(PyPendulumChain(2), args.repetitions)
    ours = python_model_step_microseconds(PyDoublePendulum(), args.repetitions)
    empty = empty_call_microseconds()
    report["python_model_step_us"] = ours
    report["generic_python_model_step_us"] = generic
    report["empty_trampoline_call_us"] = empty
    print(f"Python models: generic N-link numpy model {generic:.1f} µs per step, scalar double pendulum "
          f"{ours:.1f} µs; one trampoline call to a method that returns a stored array {empty:.2f} µs")
    if args.seed_script:
        seed = seed_script_step_microseconds(args.seed_script, max(3, args.repetitions // 3))
        report["seed_script_step_us"] = seed
        report["speedup"] = seed / ours
        print(f"target 2: a Python model's step {ours:.1f} µs, seed 000's numpy step {seed:.1f} µs: "
              f"{seed / ours:.2f}× faster (aim ≥ 5×)")
    else:
        print(f"target 2: a Python model's step {ours:.1f} µs")
    total, methods = python_model_profile(PyDoublePendulum())
    report["profile_us_per_step"] = {"total": total, **{k: v[1] for k, v in methods.items()}}
    print(f"profile (cProfile on, so slower than above): {total:.1f} µs per step")
    for name, (calls, micro) in sorted(methods.items(), key=lambda item: -item[1][1]):
        print(f"  {name:<22} {calls:4.1f} calls/step  {micro:6.2f} µs/step (cumulative)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

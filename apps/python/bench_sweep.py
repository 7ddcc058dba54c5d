"""kktdae.sweep on the library's threads against a Python loop of kktdae.simulate (docs/python.md,
"Many runs on all cores").

The runs are those of apps/sweep/examples/chapter-seeds.json: seed 000's double pendulum from the tilt
numpy's default_rng(seed) draws for seeds 0-99, semi-implicit Euler, dt 0.005 s, 4000 steps, without
stabilization and with Baumgarte ω = 20 (200 runs), each recorded at every step. Three ways, interleaved
in each repetition so that load on the machine falls on all three alike; medians of 9 repetitions:

    loop       [kktdae.simulate(chain, s, o) for s, o in zip(starts, options)]
    sweep(1)   kktdae.sweep(chain, starts, options, threads=1)
    sweep(N)   kktdae.sweep(chain, starts, options, threads=N)   (N: --threads, default every core)

and checks that the three give the same recorded positions, bit for bit. The CPU column is the process's
CPU time (all its threads): CPU / wall is how many cores the way got. On Linux with autogroup
scheduling (/proc/sys/kernel/sched_autogroup_enabled = 1), a session gets one share of the cores
beside other busy sessions, whatever its thread count: there sweep(N) cannot beat the loop.
Run: PYTHONPATH=build/release/python /usr/bin/python3 apps/python/bench_sweep.py [--threads N] [--record 0]
"""
import argparse
import os
import time

import numpy as np

import kktdae


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--record", type=int, default=1, help="1: record every step (default); 0: no recording")
    args = parser.parse_args()

    chain = kktdae.PendulumChain(2)
    tilts = [float(np.random.default_rng(seed).uniform(-0.05, 0.05)) for seed in range(100)]
    modes = [kktdae.Stabilization.none(), kktdae.Stabilization.critical(20.0)]
    starts = [chain.initial_state(tilt) for tilt in tilts for _ in modes]
    options = [kktdae.SimulationOptions(integrator="semi_implicit", dt=0.005, steps=4000, stabilization=mode)
               for _ in tilts for mode in modes]
    record = bool(args.record)

    ways = {
        "loop": lambda: [kktdae.simulate(chain, s, o, record=record) for s, o in zip(starts, options)],
        "sweep(1)": lambda: kktdae.sweep(chain, starts, options, threads=1, record=record),
        f"sweep({args.threads})": lambda: kktdae.sweep(chain, starts, options, threads=args.threads, record=record),
    }
    times = {name: [] for name in ways}
    cpu = {name: [] for name in ways}
    last = {}
    for _ in range(args.repetitions):
        for name, run in ways.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            last[name] = run()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    if record:
        reference = last["loop"]
        for name, results in last.items():
            assert all(np.array_equal(a.recording.q, b.recording.q) for a, b in zip(results, reference)), name
    median = {name: sorted(t)[len(t) // 2] for name, t in times.items()}
    median_cpu = {name: sorted(t)[len(t) // 2] for name, t in cpu.items()}
    print(f"{len(starts)} runs of 4000 steps, record={record}, medians of {args.repetitions} interleaved repetitions, "
          f"load {os.getloadavg()[0]:.2f}")
    for name, seconds in median.items():
        print(f"{name:<12} {seconds * 1e3:9.1f} ms   speedup over the loop {median['loop'] / seconds:5.2f}x   "
              f"CPU {median_cpu[name] * 1e3:7.1f} ms ({median_cpu[name] / seconds:4.2f} cores)")


if __name__ == "__main__":
    main()

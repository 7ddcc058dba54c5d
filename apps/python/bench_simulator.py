"""Simulator.step() called from Python against the same steps in C++ (docs/python.md, "Step by step").

Seed 000's double pendulum, semi-implicit Euler, dt 0.005 s, Baumgarte ω = 20, 20000 steps; medians
of 9 repetitions. "C++ step" is Simulator.advance_to over the whole run (one Python call, the loop in
C++); "from Python" is a Python loop of Simulator.step(); simulate(steps=1) is what a step cost
before the Simulator. Run: PYTHONPATH=build/release/python /usr/bin/python3 apps/python/bench_simulator.py
"""
import time

import kktdae

STEPS = 20000


def median_seconds(run, repetitions=9):
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return sorted(times)[repetitions // 2]


def main():
    chain = kktdae.PendulumChain(2)
    state = chain.initial_state(0.0137)
    options = kktdae.SimulationOptions(integrator="semi_implicit", dt=0.005,
                                       stabilization=kktdae.Stabilization.critical(20.0))

    def in_cpp():
        kktdae.Simulator(chain, state, options).advance_to(STEPS * options.dt)

    def from_python():
        step = kktdae.Simulator(chain, state, options).step
        for _ in range(STEPS):
            step()

    def one_step_runs():
        one = kktdae.SimulationOptions(integrator="semi_implicit", dt=0.005, steps=1,
                                       stabilization=options.stabilization)
        for _ in range(2000):
            kktdae.simulate(chain, state, one, record=False)

    cpp = median_seconds(in_cpp) / STEPS
    python = median_seconds(from_python) / STEPS
    restarted = median_seconds(one_step_runs) / 2000
    print(f"C++ step (advance_to):        {cpp * 1e6:.3f} us")
    print(f"Simulator.step() from Python: {python * 1e6:.3f} us  ({(python - cpp) * 1e6:.3f} us above the C++ step)")
    print(f"simulate(steps=1) per call:   {restarted * 1e6:.3f} us")


if __name__ == "__main__":
    main()

"""Simulator.step() called from Python against the same steps in C++ (docs/python.md, "Step by step").

Seed 000's double pendulum, semi-implicit Euler, dt 0.005 s, Baumgarte ω = 20, 20000 steps; medians
of 9 repetitions. "C++ step" is Simulator.advance_to over the whole run (one Python call, the loop in
C++); "from Python" is a Python loop of Simulator.step(); simulate(steps=1) is what a step cost
before the Simulator. The same for cvode_bdf (rtol 1e-8, atol 1e-10, Baumgarte ω = 20, 20 s): per
internal step of the solver, advance_to(20) against a loop of step() (the same internal steps). Last,
cvode_adams at rtol 1e-8 over 10 s (2000 outputs of 0.005 s): how far from one simulate() run a loop
of simulate(steps=1) ends, restarting the solver at every output, and the Simulator advanced over
the same grid.
Run: PYTHONPATH=build/release/python /usr/bin/python3 apps/python/bench_simulator.py
"""
import numpy as np
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

    adaptive = kktdae.AdaptiveOptions(rtol=1e-8, atol=1e-10)
    bdf = kktdae.SimulationOptions(integrator="cvode_bdf", dt=0.005, adaptive=adaptive,
                                   stabilization=kktdae.Stabilization.critical(20.0))
    internal = kktdae.Simulator(chain, state, bdf)
    internal.advance_to(20.0)
    bdf_steps = internal.steps

    def bdf_in_cpp():
        kktdae.Simulator(chain, state, bdf).advance_to(20.0)

    def bdf_from_python():
        sim = kktdae.Simulator(chain, state, bdf)
        step = sim.step
        for _ in range(bdf_steps):
            step()

    bdf_cpp = median_seconds(bdf_in_cpp) / bdf_steps
    bdf_python = median_seconds(bdf_from_python) / bdf_steps
    print(f"cvode_bdf, {bdf_steps} internal steps in 20 s")
    print(f"  C++ step (advance_to):        {bdf_cpp * 1e6:.3f} us")
    print(f"  Simulator.step() from Python: {bdf_python * 1e6:.3f} us  "
          f"({(bdf_python - bdf_cpp) * 1e6:.3f} us above the C++ step)")

    adams = kktdae.SimulationOptions(integrator="cvode_adams", dt=0.005, steps=2000, adaptive=adaptive)
    whole = kktdae.simulate(chain, state, adams).recording
    one = kktdae.SimulationOptions(integrator="cvode_adams", dt=0.005, steps=1, adaptive=adaptive)
    current = state
    for _ in range(2000):
        last = kktdae.simulate(chain, current, one).recording
        current = kktdae.State(last.q[-1], last.v[-1], last.t[-1])
    sim = kktdae.Simulator(chain, state, adams)
    for t in whole.t[1:]:
        sim.advance_to(t)
    print("cvode_adams rtol 1e-8, 10 s: |q - q(one simulate run)|_inf at the end")
    print(f"  loop of simulate(steps=1): {np.max(np.abs(current.q - whole.q[-1])):.2e} m")
    print(f"  Simulator.advance_to:      {np.max(np.abs(sim.q - whole.q[-1])):.2e} m")


if __name__ == "__main__":
    main()

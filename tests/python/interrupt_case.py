"""One run of kktdae.simulate (or compute_sensitivities) for test_interrupt.py, in a process of its own (so that a KeyboardInterrupt
that arrives late, or never, cannot reach the test runner). It prints "ready" when the run starts;
the test sends SIGINT from outside (a Python thread could not: a run that holds the GIL without
calling Python lets no thread run) and reads one JSON line: what the caller saw (the exception's
type, or None when simulate returned), when (time.monotonic(), one clock for every process), and
the partial result the exception carries.

    python3 interrupt_case.py CASE      (CASE: a key of CASES)
"""
import json
import sys
import time

import kktdae
from py_models import PyDoublePendulum

def chain_run(integrator, **fields):
    chain = kktdae.PendulumChain(2)
    return chain, chain.initial_state(0.3), kktdae.SimulationOptions(integrator=integrator, **fields)


def adaptive(integrator, end_time):
    # One output at the end: before the integrators polled inside their callbacks, the flag was
    # read only between outputs, i.e. after the whole run (8-12 s here). max_steps lets CVODE and
    # IDA take the millions of steps one such interval needs.
    tolerances = kktdae.AdaptiveOptions(rtol=1e-12, atol=1e-12, max_steps=1_000_000_000)
    return chain_run(integrator, dt=end_time, steps=1, adaptive=tolerances)


CASES = {
    # The issue's acceptance runs: a C++ model (GIL released) and a Python model (GIL held).
    "rk4_cpp": lambda: (*chain_run("rk4", dt=1e-5, steps=20_000_000), {"record": False}),
    "rk4_python_model": lambda: (PyDoublePendulum(), kktdae.PendulumChain(2).initial_state(0.3),
                                 kktdae.SimulationOptions(integrator="rk4", dt=1e-5, steps=10_000_000), {}),
    "cvode_adams": lambda: (*adaptive("cvode_adams", 6000.0), {}),
    "ida_ggl": lambda: (*adaptive("ida_ggl", 1000.0), {}),
    # Python called rarely (an observer at the one output): the GIL is held but no Python runs.
    "cvode_bdf_python_observer": lambda: (*adaptive("cvode_bdf", 6000.0), {"observer": lambda t, q, v, lam: None}),
    # kktdae.sweep: four long C++ runs on two threads, the GIL released for the whole sweep.
    "sweep_two_threads": lambda: (*chain_run("rk4", dt=1e-5, steps=20_000_000), {"record": False, "sweep": 4}),
    # Python called every step from an event's g.
    "rattle_python_event": lambda: (*chain_run("rattle", dt=1e-5, steps=10_000_000, events=[
        kktdae.Event(name="never", g=lambda t, q, v, lam: [1.0])]), {"record": False}),
    # compute_sensitivities: IDAS with the sensitivity systems, the GIL released (one output at the end).
    "sensitivities_ida_ggl": lambda: (kktdae.SpringSliderCrank(), kktdae.SpringSliderCrank().initial_state(),
                                      adaptive("ida_ggl", 1e5)[2], {"sensitivities": True}),
}


def main(case):
    system, state, options, extra = CASES[case]()
    report = {"case": case, "raised": None}
    print("ready", flush=True)
    runs = extra.pop("sweep", 0)
    sensitivities = extra.pop("sensitivities", False)
    try:
        if runs:
            result = kktdae.sweep(system, [state] * runs, options, threads=2, **extra)[0]
        elif sensitivities:
            result = kktdae.compute_sensitivities(system, state, options)
        else:
            result = kktdae.simulate(system, state, options, **extra)
        report["status"] = result.summary.status.label
    except KeyboardInterrupt as interrupted:
        report["caught"] = time.monotonic()
        report["raised"] = type(interrupted).__name__
        partial = getattr(interrupted, "result", None)
        if runs:  # the sweep's results: the first run's below, and every run's status
            report["statuses"] = [r.summary.status.label for r in partial]
            partial = partial[0]
        if partial is not None:
            report["status"] = partial.summary.status.label
            report["message"] = partial.summary.message
            if sensitivities:  # the times recorded before the signal (none with one output at the end)
                report["t_final"] = float(partial.times[-1]) if len(partial.times) else state.t
            else:
                report["t_final"] = partial.summary.t_final
                report["recorded"] = None if partial.recording is None else len(partial.recording)
    report["ended"] = time.monotonic()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

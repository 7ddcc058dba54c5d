"""The recording grows as the run goes: a run asked for a billion steps that an event stops early records
what it ran, instead of failing at once reserving room for every step."""
import subprocess
import sys

import numpy as np
import pytest

import kktdae

BILLION = 1_000_000_000


def stop_at(t_stop):
    return kktdae.Event(name="alarm", g=lambda t, q, v, lam: [t - t_stop], action="stop")


@pytest.mark.parametrize("integrator", ["rk4", "cvode_bdf"])
def test_a_billion_step_run_stopped_by_an_event_records_what_it_ran(integrator):
    chain = kktdae.PendulumChain(2)
    options = kktdae.SimulationOptions(integrator=integrator, dt=1e-3, steps=BILLION, events=[stop_at(0.01)])
    result = kktdae.simulate(chain, chain.initial_state(0.3), options)
    assert result.summary.status == kktdae.RunStatus.STOPPED_BY_EVENT, result.summary.message
    rec = result.recording
    assert 11 <= len(rec) <= 12 and rec.q.shape == (len(rec), 6)
    assert rec.t[-1] == pytest.approx(0.01, abs=1e-9)
    np.testing.assert_allclose(rec.t[:11], 1e-3 * np.arange(11), rtol=0, atol=1e-15)


def test_a_recording_that_grows_past_its_first_reservation_equals_the_reserved_one():
    # 40,001 states of a 10-link chain take 23 MB: more than the 16 MB reserved before a run that
    # may be longer (RecordingBudget::kUpFrontBytes), so the stopped run's recording grows.
    chain = kktdae.PendulumChain(10)
    state = chain.initial_state(0.3)
    grid = kktdae.SimulationOptions(integrator="rk4", dt=1e-4, steps=40_000)
    stopped = kktdae.SimulationOptions(integrator="rk4", dt=1e-4, steps=BILLION, events=[stop_at(4.00005)])
    full, grown = kktdae.simulate(chain, state, grid), kktdae.simulate(chain, state, stopped)
    assert full.summary.ok and grown.summary.stopped_by_event
    n = len(full.recording)
    assert n == 40_001 and len(grown.recording) == n + 1  # and the event's state
    for field in ("t", "q", "v", "lam", "violation", "energy"):
        np.testing.assert_array_equal(getattr(grown.recording, field)[:n], getattr(full.recording, field))


OUT_OF_MEMORY = """
import resource, sys
import kktdae
# The address space this process has, plus 150 MB: the recording doubles (16, 32, 64, 128 MB)
# until an allocation fails.
size = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + 150_000_000, resource.RLIM_INFINITY))
chain = kktdae.PendulumChain(10)
try:
    kktdae.simulate(chain, chain.initial_state(0.3), kktdae.SimulationOptions(integrator="rk4", dt=1e-5, steps=10**9))
except MemoryError as error:
    print(len(error.result.recording), error.result.summary.status.label)
    print(error)
"""


def test_a_recording_that_outgrows_the_memory_raises_memory_error_saying_what_to_do():
    # In a child whose address space is limited: the growth that does not fit fails (std::bad_alloc,
    # as a full machine would refuse it) and the run ends there, keeping what it recorded.
    done = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    counts, message = done.stdout.split("\n", 1)
    recorded, status = counts.split()
    assert int(recorded) > 27_000 and status == "model_error"  # the first 16 MB's states, at least
    assert "the recording cannot grow from" in message
    assert "record=False" in message and "observe_every" in message

"""kktdae.sweep: many runs on the library's threads with the GIL released, results in run order,
bit for bit the same whatever the thread count and the same as simulate() one run at a time."""
import numpy as np
import pytest

import kktdae

SERIES = ("t", "q", "v", "lam", "violation", "energy")


def same_run(a, b):
    """Bit for bit: every recorded array and every Summary field but the wall time."""
    for name in SERIES:
        assert np.array_equal(getattr(a.recording, name), getattr(b.recording, name)), name
    sa, sb = a.summary.__getstate__(), b.summary.__getstate__()
    sa.pop("wall_seconds"), sb.pop("wall_seconds")
    return sa == sb


@pytest.fixture
def seeds_and_gains():
    """The chapter's double pendulum from six seeds' tilts, at two Baumgarte gains (one blows up)."""
    chain = kktdae.PendulumChain(2)
    tilts = [float(np.random.default_rng(seed).uniform(-0.05, 0.05)) for seed in range(6)]
    starts = [chain.initial_state(tilt) for tilt in tilts for _ in range(2)]
    options = [kktdae.SimulationOptions(dt=0.005, steps=400, stabilization=kktdae.Stabilization.critical(omega))
               for _ in tilts for omega in (20.0, 900.0)]
    return chain, starts, options


def test_one_and_two_threads_give_the_same_bits_and_the_same_as_simulate(seeds_and_gains):
    chain, starts, options = seeds_and_gains
    serial = kktdae.sweep(chain, starts, options, threads=1)
    parallel = kktdae.sweep(chain, starts, options, threads=2)
    looped = [kktdae.simulate(chain, s, o) for s, o in zip(starts, options)]
    assert len(serial) == len(parallel) == 12
    for a, b, c in zip(serial, parallel, looped):
        assert same_run(a, b) and same_run(a, c)
    # A blow-up is a result like any other; the runs after it went on.
    statuses = [r.summary.status for r in serial]
    assert statuses[0::2] == [kktdae.RunStatus.SUCCESS] * 6
    assert all(s != kktdae.RunStatus.SUCCESS for s in statuses[1::2]), statuses


def test_single_values_broadcast_and_lists_must_agree(chain, state):
    options = [kktdae.SimulationOptions(steps=n) for n in (1, 2, 3)]
    results = kktdae.sweep(chain, state, options, record=False)
    assert [r.summary.steps for r in results] == [1, 2, 3] and all(r.recording is None for r in results)
    assert len(kktdae.sweep(chain, state, kktdae.SimulationOptions(steps=1))) == 1
    with pytest.raises(ValueError, match="initial has 2 items but options has 3"):
        kktdae.sweep(chain, [state, state], options)
    with pytest.raises(TypeError, match="run 1's initial must be a State, got int"):
        kktdae.sweep(chain, [state, 5, state], options)


def test_runs_that_would_call_python_or_are_invalid_are_refused_by_run_before_any_starts(chain, state):
    from py_models import PyPendulumChain
    options = kktdae.SimulationOptions(steps=10)
    with pytest.raises(TypeError, match="run 1's system is PyPendulumChain, a model written in Python"):
        kktdae.sweep([chain, PyPendulumChain(2)], state, options)
    ground = kktdae.Event(name="ground", g=lambda t, q, v, lam: [q[1]])
    with pytest.raises(TypeError, match="run 0's options have events"):
        kktdae.sweep(chain, state, [kktdae.SimulationOptions(steps=5, events=[ground])])
    with pytest.raises(ValueError, match="run 1: .*dt"):
        kktdae.sweep(chain, state, [options, kktdae.SimulationOptions(steps=5, dt=-1.0)])
    with pytest.raises(ValueError, match="run 0: SimulationOptions gives neither steps nor end_time"):
        kktdae.sweep(chain, state, kktdae.SimulationOptions())
    with pytest.raises(ValueError, match="threads"):
        kktdae.sweep(chain, state, options, threads=-1)

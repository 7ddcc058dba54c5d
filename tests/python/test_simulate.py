"""simulate() from Python: options by keyword, the in-C++ recording, the observer, every integrator,
and the GIL released while a C++ model runs."""
import threading
import time

import numpy as np
import pytest

import kktdae


@pytest.mark.parametrize("integrator", kktdae.all_integrators(), ids=lambda i: i.label)
def test_every_integrator_runs_the_double_pendulum_and_records_what_the_observer_sees(chain, state, integrator):
    seen = []
    options = kktdae.SimulationOptions(integrator=integrator, dt=0.005, steps=200,
                                       stabilization=kktdae.Stabilization.critical(20.0))
    result = kktdae.simulate(chain, state, options, observer=lambda t, q, v, lam: seen.append((t, q, v, lam)))
    summary, rec = result.summary, result.recording
    assert summary.ok, summary.message
    assert summary.integrator == integrator
    assert len(rec) == summary.outputs == len(seen) == 201
    assert rec.q.shape == (201, 6) and rec.v.shape == (201, 6) and rec.lam.shape == (201, 2)
    np.testing.assert_array_equal(rec.t, [s[0] for s in seen])
    np.testing.assert_array_equal(rec.q, np.array([s[1] for s in seen]))
    np.testing.assert_array_equal(rec.lam, np.array([s[3] for s in seen]))
    # violation and energy are the model's own ‖φ‖∞ and T + V at each recorded state.
    for i in (0, 57, 200):
        assert rec.violation[i] == np.max(np.abs(chain.constraint(rec.q[i], rec.t[i])))
        assert rec.energy[i] == chain.total_energy(rec.q[i], rec.v[i], rec.t[i])
    assert rec.t[-1] == pytest.approx(1.0, abs=1e-12)
    # The Summary's max ‖φ‖∞ is over the same observed states the recording holds.
    assert summary.max_phi_inf == pytest.approx(rec.violation.max(), rel=1e-12)
    assert summary.final_phi_inf == pytest.approx(rec.violation[-1], rel=1e-12)


def test_recording_every_kth_step_keeps_the_first_and_last_states(chain, state):
    result = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=1003, observe_every=10))
    rec = result.recording
    assert len(rec) == 1 + 100 + 1  # t0, every 10th grid point, and the last step
    np.testing.assert_allclose(rec.t[:-1], 0.05 * np.arange(101), atol=1e-12)
    assert rec.t[-1] == pytest.approx(1003 * 0.005, abs=1e-12)
    full = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=1003)).recording
    np.testing.assert_array_equal(rec.q[:-1], full.q[:-1:10])
    np.testing.assert_array_equal(rec.q[-1], full.q[-1])


def test_record_false_gives_no_recording_and_the_same_summary(chain, state):
    with_recording = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=100))
    without = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=100), record=False)
    assert without.recording is None
    assert without.summary.max_phi_inf == with_recording.summary.max_phi_inf
    assert without.summary.kkt_solves == with_recording.summary.kkt_solves


def test_a_controller_drives_the_four_bar_crank():
    params = kktdae.FourBarParams(gravity=0.0)
    model = kktdae.FourBar(params)
    start = kktdae.four_bar_state(params, 0.7, 0.0)
    free = kktdae.simulate(model, start, kktdae.SimulationOptions(integrator="rk4", dt=0.001, steps=200))
    driven = kktdae.simulate(model, start, kktdae.SimulationOptions(integrator="rk4", dt=0.001, steps=200),
                             controller=lambda t, q, v: np.array([5.0]))
    assert free.summary.ok and driven.summary.ok
    assert np.all(free.recording.q[-1] == start.q)  # no gravity, no torque: at rest stays at rest
    assert driven.recording.q[-1, 0] > start.q[0] + 1e-3  # a positive torque turns the crank forward
    # The work of the constant torque is τ Δθ1 = the energy gained.
    work = 5.0 * (driven.recording.q[-1, 0] - start.q[0])
    assert driven.recording.energy[-1] - driven.recording.energy[0] == pytest.approx(work, rel=1e-6)


def test_a_failed_run_reports_its_status_and_keeps_what_was_recorded(chain, state):
    # RK4 at ω with dt·ω far past its stability limit 2.785: the Baumgarte feedback blows up.
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.05, steps=2000,
                                       stabilization=kktdae.Stabilization.critical(400.0))
    result = kktdae.simulate(chain, state, options)
    assert not result.summary.ok
    assert not result.summary  # __bool__ is ok
    assert result.summary.failed_step > 0
    assert len(result.recording) == result.summary.outputs
    assert np.all(np.isfinite(result.recording.q))
    with pytest.raises(kktdae.SimulationError, match=result.summary.status.label):
        result.raise_on_failure()


def test_the_gil_is_released_while_a_cpp_model_runs(chain, state):
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.01)
        begin = time.perf_counter()
        kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=200_000), record=False)
        end = time.perf_counter()
    finally:
        stop.set()
        counter.join()
    inside = [t for t in ticks if begin < t < end]
    # With the GIL held for the whole run no tick could land inside it.
    assert len(inside) >= 3, f"{len(inside)} ticks during a {1e3 * (end - begin):.1f} ms run"


def test_simulations_in_threads_equal_the_same_runs_in_sequence(chain, state):
    stabs = [kktdae.Stabilization.none(), kktdae.Stabilization.critical(20.0), kktdae.Stabilization.critical(40.0)]
    sequential = [kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=2000, stabilization=s)).recording.q
                  for s in stabs]
    parallel = [None] * len(stabs)

    def work(i):
        parallel[i] = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=2000, stabilization=stabs[i])).recording.q

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(stabs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(sequential, parallel):
        np.testing.assert_array_equal(a, b)


def test_options_take_keywords_enums_and_names():
    options = kktdae.SimulationOptions(integrator="cvode_bdf", dt=0.01, steps=7,
                                       kkt=kktdae.KktOptions(form=kktdae.KktForm.BLOCK))
    assert options.integrator == kktdae.Integrator.CVODE_BDF
    assert options.kkt.form == kktdae.KktForm("block")
    assert options.steps == 7 and options.dt == 0.01
    assert kktdae.Integrator.RK4.label == "rk4" and kktdae.Integrator.RK4.convergence_order == 4
    assert kktdae.Integrator("ida_ggl").is_adaptive
    assert repr(options).startswith("SimulationOptions(integrator=<Integrator.CVODE_BDF")
    assert "RunStatus" in repr(kktdae.RunStatus.SUCCESS)
    # The enum members follow the library's list: every integrator it has, none missing.
    assert [i.label for i in kktdae.all_integrators()] == [m.label for m in kktdae.Integrator.__members__.values()]


def test_a_recording_is_indexed_sliced_and_iterated_like_a_sequence_of_states(chain, state):
    rec = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=20)).recording
    first, last = rec[0], rec[-1]
    assert isinstance(first, kktdae.RecordedState) and first.t == 0.0 and last.t == rec.t[-1]
    np.testing.assert_array_equal(rec[5].q, rec.q[5])
    np.testing.assert_array_equal(rec[5].lam, rec.lam[5])
    assert (rec[5].violation, rec[5].energy) == (rec.violation[5], rec.energy[5])
    t, q, v, lam, violation, energy = rec[3]
    assert t == rec.t[3]
    every_fifth = rec[::5]
    assert isinstance(every_fifth, kktdae.Recording) and len(every_fifth) == 5
    np.testing.assert_array_equal(every_fifth.q, rec.q[::5])
    assert every_fifth.violation_measure == rec.violation_measure
    assert [s.t for s in rec] == list(rec.t) and len(list(rec)) == len(rec) == 21
    with pytest.raises(IndexError, match="index 21 out of range for a recording of 21 states"):
        rec[21]
    with pytest.raises(TypeError, match="integers or slices, got str"):
        rec["q"]

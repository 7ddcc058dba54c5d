"""Events with Python conditions: located at the time the pendulum's own solution gives, STOP and CALLBACK
actions, the FiredEvent records, and a g that raises or returns the wrong shape ending the run as
MODEL_ERROR with its message (never crashing the interpreter)."""
import numpy as np
import pytest

import kktdae

# A pendulum released at rest from the horizontal reaches the bottom after a quarter of its period,
# T/4 = K(sin(π/4)) √(L/g), with K(1/√2) = 1.8540746773013719 the complete elliptic integral of the
# first kind.
QUARTER_PERIOD = 1.8540746773013719 * np.sqrt(1.0 / 9.81)


def pendulum_run(events, integrator="rk4", steps=1000, **fields):
    pendulum = kktdae.PendulumChain(1)
    options = kktdae.SimulationOptions(integrator=integrator, dt=0.002, steps=steps, events=events, **fields)
    return kktdae.simulate(pendulum, pendulum.initial_state(0.0), options)


def bottom(**fields):
    """x = q[0] falls through 0 where the bob passes under the pivot."""
    return kktdae.Event(name="bottom", g=lambda t, q, v, lam: [q[0]], direction="falling", **fields)


@pytest.mark.parametrize("integrator", ["rk4", "generalized_alpha", "cvode_bdf"])
def test_a_falling_crossing_is_located_at_the_quarter_period(integrator):
    result = pendulum_run([bottom()], integrator=integrator, adaptive=kktdae.AdaptiveOptions(rtol=1e-10, atol=1e-12))
    summary = result.summary
    assert summary.ok, summary.message
    # Over 2 s the bob passes the bottom at T/4 and 3T/4, falling in x only at the first (then x rises).
    assert len(summary.events) == 1
    fired = summary.events[0]
    assert fired.name == "bottom" and fired.event == 0 and fired.component == 0
    assert fired.direction == kktdae.EventDirection.FALLING
    # rk4 and cvode at rtol 1e-10 follow the solution to ~1e-9; generalized-α is second order at dt 0.002.
    tolerance = 1e-4 if integrator == "generalized_alpha" else 1e-7
    assert fired.time == pytest.approx(QUARTER_PERIOD, abs=tolerance)
    assert abs(fired.q[0]) < 1e-6 and fired.q.shape == (3,) and fired.lam.shape == (1,)
    assert summary.event_evaluations > 0


def test_stop_ends_the_run_there_keeping_what_was_recorded():
    result = pendulum_run([bottom(action="stop")])
    summary, rec = result.summary, result.recording
    assert summary.status == kktdae.RunStatus.STOPPED_BY_EVENT and summary.stopped_by_event
    assert not summary.ok
    assert summary.events[0].time == pytest.approx(QUARTER_PERIOD, abs=1e-7)
    assert rec.t[-1] == pytest.approx(summary.events[0].time, abs=1e-9)
    assert len(rec) > 100


def test_a_callback_sees_every_firing_and_decides_when_to_stop():
    seen = []

    def callback(fired):
        seen.append(fired.time)
        return kktdae.EventDecision.STOP if len(seen) == 2 else None

    either = kktdae.Event(name="under", g=lambda t, q, v, lam: [q[0]], action="callback", callback=callback)
    result = pendulum_run([either], steps=2000)
    assert result.summary.stopped_by_event
    assert [f.time for f in result.summary.events] == seen
    assert seen == pytest.approx([QUARTER_PERIOD, 3 * QUARTER_PERIOD], abs=1e-6)


def test_exceptions_and_wrong_shapes_from_g_end_the_run_as_model_error():
    def broken(t, q, v, lam):
        if t > 0.1:
            raise RuntimeError("sensor unplugged")
        return [q[0]]

    raised = pendulum_run([kktdae.Event(name="broken", g=broken)])
    assert raised.summary.status == kktdae.RunStatus.MODEL_ERROR
    assert "sensor unplugged" in raised.summary.message
    assert 0.1 <= raised.summary.t_final <= 0.11 and len(raised.recording) > 10

    shaped = pendulum_run([kktdae.Event(name="pair", size=1, g=lambda t, q, v, lam: [q[0], q[1]])])
    assert shaped.summary.status == kktdae.RunStatus.MODEL_ERROR
    assert "pair" in shaped.summary.message


def test_bad_events_raise_value_error_naming_the_field():
    with pytest.raises(ValueError, match="name"):
        pendulum_run([kktdae.Event(g=lambda t, q, v, lam: [q[0]])])  # no name
    with pytest.raises(ValueError, match="callback"):
        pendulum_run([bottom(action="callback")])  # CALLBACK without a callback
    with pytest.raises(ValueError):
        pendulum_run([bottom(), bottom()])  # two events of one name
    with pytest.raises(TypeError):
        kktdae.Event(name="x", g=3.0)
    event = bottom()
    assert callable(event.g) and event.g(0.0, np.array([0.5, 0, 0]), None, None) == [0.5]
    assert event.direction.label == "falling" and "bottom" in repr(event)


def test_the_event_observer_sees_each_event_as_it_fires_with_its_time_and_index():
    """Two events, the second crossing twice: the observer is told of all three firings, in time
    order, with the index of the event in SimulationOptions.events, and sees what Summary.events keeps."""
    seen = []

    def observer(fired):
        seen.append((fired.event, fired.name, fired.time, fired.component, fired.q.copy()))

    under = kktdae.Event(name="under", g=lambda t, q, v, lam: [q[0]])  # either way: T/4 and 3T/4
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.002, steps=1000, events=[bottom(), under],
                                       event_observer=observer)
    assert options.event_observer is observer
    pendulum = kktdae.PendulumChain(1)
    summary = kktdae.simulate(pendulum, pendulum.initial_state(0.0), options).summary
    assert summary.ok, summary.message
    # Over 2 s: "bottom" (falling) at T/4 only, "under" (either) at T/4 and 3T/4.
    assert len(seen) == 3
    times_of = {0: [], 1: []}
    for event, name, t, _, _ in seen:
        assert name == ("bottom", "under")[event]
        times_of[event].append(t)
    assert times_of[0] == pytest.approx([QUARTER_PERIOD], abs=1e-7)
    assert times_of[1] == pytest.approx([QUARTER_PERIOD, 3 * QUARTER_PERIOD], abs=1e-6)
    times = [t for _, _, t, _, _ in seen]
    assert times == sorted(times)  # told in time order, as they fire
    # ... and of exactly what Summary.events keeps, in its order.
    assert [(f.event, f.time, f.component) for f in summary.events] == [(e, t, c) for e, _, t, c, _ in seen]
    for (_, _, _, _, q), fired in zip(seen, summary.events):
        assert np.array_equal(q, fired.q)


def test_the_event_observer_is_told_of_a_stop_before_it_ends_the_run_and_its_errors_end_it_as_model_error():
    seen = []
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.002, steps=1000, events=[bottom(action="stop")],
                                       event_observer=lambda fired: seen.append(fired.time))
    pendulum = kktdae.PendulumChain(1)
    summary = kktdae.simulate(pendulum, pendulum.initial_state(0.0), options).summary
    assert summary.stopped_by_event
    assert seen == [summary.events[0].time]

    def broken(fired):
        raise RuntimeError("logger full")

    options.event_observer = broken
    raised = kktdae.simulate(pendulum, pendulum.initial_state(0.0), options).summary
    assert raised.status == kktdae.RunStatus.MODEL_ERROR
    assert "logger full" in raised.message
    options.event_observer = None
    assert options.event_observer is None
    with pytest.raises(TypeError, match="event_observer"):
        options.event_observer = 3

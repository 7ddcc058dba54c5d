"""An exception raised by Python code during a run (model, observer, controller, event) keeps its type and
traceback: the run ends as MODEL_ERROR with the exception on the result, raise_on_failure() raises a
SimulationError that is also the original's type, caused by it, whose traceback ends in the frame that
raised it (what pdb.pm() opens); KeyboardInterrupt, SystemExit and MemoryError leave simulate() as
themselves, carrying the partial result."""
import traceback

import numpy as np
import pytest

import kktdae
from py_models import PyPendulumChain


class Sensor(Exception):
    """A user's own exception type."""


def failing_model(error):
    class Failing(PyPendulumChain):
        def constraint_bias(self, q, v, t):
            if t > 0.0499:  # from the 10th step on (t = 0.005 k)
                raise error
            return super().constraint_bias(q, v, t)

    return Failing(2)


def run(model, state, **extra):
    return kktdae.simulate(model, state, kktdae.SimulationOptions(integrator="rk4", dt=0.005, steps=50), **extra)


@pytest.mark.parametrize("error", [ValueError("boom"), ZeroDivisionError("by zero"), Sensor("unplugged")],
                         ids=lambda e: type(e).__name__)
def test_raise_on_failure_chains_the_models_exception_with_its_type_and_traceback(state, error):
    result = run(failing_model(error), state)
    assert result.summary.status == kktdae.RunStatus.MODEL_ERROR
    assert str(error) in result.summary.message  # the message keeps the text, as before
    assert result.exception is error
    with pytest.raises(type(error)) as raised:  # `except ValueError` catches it ...
        result.raise_on_failure()
    assert isinstance(raised.value, kktdae.SimulationError)  # ... and so does `except SimulationError`
    assert raised.value.__cause__ is error
    assert raised.value.summary.status == kktdae.RunStatus.MODEL_ERROR
    # pdb.pm() opens the innermost frame of the traceback: the model method that raised.
    assert traceback.extract_tb(raised.value.__traceback__)[-1].name == "constraint_bias"
    assert traceback.extract_tb(error.__traceback__)[-1].name == "constraint_bias"


def test_a_failure_without_a_python_exception_stays_a_plain_simulation_error(chain, state):
    blown = kktdae.simulate(chain, state, kktdae.SimulationOptions(
        integrator="rk4", dt=0.05, steps=2000, stabilization=kktdae.Stabilization.critical(400.0)))
    assert not blown.summary.ok and blown.exception is None
    with pytest.raises(kktdae.SimulationError) as raised:
        blown.raise_on_failure()
    assert type(raised.value) is kktdae.SimulationError and raised.value.__cause__ is None


def test_observer_controller_and_event_exceptions_are_chained_too(chain, state):
    def observer(t, q, v, lam):
        if t > 0.02:
            raise KeyError("observer")

    seen = run(chain, state, observer=observer)
    assert isinstance(seen.exception, KeyError)

    pendulum = kktdae.PendulumChain(1)
    event = kktdae.Event(name="late", g=lambda t, q, v, lam: [1.0 / (0.1 - t) if t < 0.1 else 1 / 0])
    stopped = kktdae.simulate(pendulum, pendulum.initial_state(0.0), kktdae.SimulationOptions(
        integrator="rk4", dt=0.005, steps=50, events=[event]))
    assert isinstance(stopped.exception, ZeroDivisionError)
    with pytest.raises(ZeroDivisionError):
        stopped.raise_on_failure()


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3), MemoryError("model")],
                         ids=lambda e: type(e).__name__)
def test_keyboard_interrupt_system_exit_and_memory_error_leave_simulate_as_themselves(state, error):
    with pytest.raises(type(error)) as raised:
        run(failing_model(error), state)
    assert raised.value is error
    partial = raised.value.result
    assert 0.0449 < partial.summary.t_final < 0.0501 and len(partial.recording) >= 10
    expected = kktdae.RunStatus.INTERRUPTED if isinstance(error, KeyboardInterrupt) else kktdae.RunStatus.MODEL_ERROR
    assert partial.summary.status == expected


def test_a_controller_that_raises_system_exit_ends_simulate(state):
    four_bar = kktdae.FourBar()
    start = kktdae.four_bar_state(kktdae.FourBarParams(), 0.3, 1.0)

    def controller(t, q, v):
        if t > 0.01:
            raise SystemExit("stop here")
        return np.zeros(1)

    with pytest.raises(SystemExit, match="stop here"):
        kktdae.simulate(four_bar, start, kktdae.SimulationOptions(integrator="rk4", dt=0.005, steps=50),
                        controller=controller)

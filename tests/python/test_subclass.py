"""A ConstrainedSystem written in Python runs through every solver, integrator and check, and gives
the shipped C++ model's results to round-off."""
import numpy as np
import pytest

import kktdae
from py_models import PyDoublePendulum, PyPendulumChain


def run(model, state, **options):
    return kktdae.simulate(model, state, kktdae.SimulationOptions(**options))


def test_python_model_terms_equal_the_cpp_model(chain, py_chain, moving_state):
    q, v = moving_state.q, moving_state.v
    np.testing.assert_array_equal(py_chain.mass_matrix(q), chain.mass_matrix(q))
    np.testing.assert_array_equal(py_chain.bias(q, v, 0.0), chain.bias(q, v))
    np.testing.assert_allclose(py_chain.constraint(q, 0.0), chain.constraint(q), rtol=1e-15, atol=1e-16)
    np.testing.assert_array_equal(py_chain.constraint_jacobian(q, 0.0), chain.constraint_jacobian(q))
    np.testing.assert_allclose(py_chain.constraint_bias(q, v, 0.0), chain.constraint_bias(q, v), rtol=1e-15)


@pytest.mark.parametrize("form", ["schur", "block"])
@pytest.mark.parametrize("general_mass", [False, True], ids=["diagonal_mass", "general_mass"])
def test_kkt_solve_of_a_python_model_equals_the_cpp_one(chain, moving_state, form, general_mass):
    model = PyPendulumChain(2, general_mass=general_mass)
    q, v = moving_state.q, moving_state.v
    options = kktdae.KktOptions(form=form)
    stab = kktdae.Stabilization.critical(20.0)
    ours = kktdae.solve_kkt(model, q, v, stabilization=stab, options=options)
    reference = kktdae.solve_kkt(chain, q, v, stabilization=stab, options=options)
    assert ours.ok and reference.ok
    np.testing.assert_allclose(ours.qdd, reference.qdd, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(ours.lam, reference.lam, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("integrator", [i.label for i in kktdae.all_integrators()])
def test_every_integrator_runs_a_python_model_as_it_runs_the_cpp_model(chain, py_chain, state, integrator):
    options = dict(integrator=integrator, dt=0.005, steps=100, stabilization=kktdae.Stabilization.critical(20.0))
    ours, reference = run(py_chain, state, **options), run(chain, state, **options)
    assert ours.summary.ok, ours.summary.message
    assert reference.summary.ok, reference.summary.message
    assert ours.summary.steps == reference.summary.steps
    assert ours.summary.kkt_solves == reference.summary.kkt_solves
    a, b = ours.recording, reference.recording
    np.testing.assert_array_equal(a.t, b.t)
    # The same arithmetic up to the order of a 3-term dot product: differences stay at round-off.
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-11)
    np.testing.assert_allclose(a.v, b.v, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.lam, b.lam, rtol=0, atol=1e-9)
    np.testing.assert_allclose(a.energy, b.energy, rtol=0, atol=1e-10)


def test_derivative_check_runs_on_a_python_model_and_catches_a_wrong_jacobian(py_chain, moving_state):
    good = kktdae.check_derivatives(py_chain, moving_state.q, moving_state.v)
    assert good.worst_relative_error() < 1e-8, good.describe()

    class WrongJacobian(PyPendulumChain):
        def constraint_jacobian(self, q, t):
            return 1.01 * super().constraint_jacobian(q, t)

    bad = kktdae.check_derivatives(WrongJacobian(2), moving_state.q, moving_state.v)
    assert bad.jacobian_error > 1e-3


def test_a_missing_method_is_a_type_error_naming_class_and_method(state):
    class NoBias(PyPendulumChain):
        bias = kktdae.ConstrainedSystem.bias  # back to the C++ pure virtual: not defined in Python

    with pytest.raises(TypeError, match=r"NoBias\.bias is not defined"):
        run(NoBias(2), state, steps=3)


def test_a_wrong_returned_shape_names_the_method(state):
    class ShortBias(PyPendulumChain):
        def bias(self, q, v, t):
            return np.zeros(5)

    with pytest.raises(ValueError, match=r"ShortBias\.bias: the returned h must have shape \(6,\), got \(5,\)"):
        run(ShortBias(2), state, steps=3)


def test_an_exception_in_a_python_model_ends_the_run_with_a_failed_status_and_keeps_the_recording(state):
    class Failing(PyPendulumChain):
        def constraint_bias(self, q, v, t):
            if t > 0.0499:  # from the 10th step on (t = 0.005 k)
                raise ZeroDivisionError(f"boom at t = {t:.3f}")
            return super().constraint_bias(q, v, t)

    result = run(Failing(2), state, steps=50)
    assert not result.summary.ok
    # model_error once issue 14 is merged; solver_failure ("run aborted by an exception") before it.
    assert result.summary.status.label in ("model_error", "solver_failure")
    assert "boom at t = 0.050" in result.summary.message
    assert "ZeroDivisionError" in result.summary.message
    # Every state before the throw stays recorded, none after it.
    rec = result.recording
    assert len(rec) >= 10
    assert 0.0449 < rec.t[-1] < 0.0501
    np.testing.assert_allclose(rec.t, 0.005 * np.arange(len(rec)), atol=1e-12)


def test_integer_and_list_returns_are_converted(state, chain):
    class Lists(PyPendulumChain):
        def bias(self, q, v, t):
            return [0, 9.81, 0, 0, 9.81, 0]  # a list with ints: converted to float64

    result = run(Lists(2), state, steps=20)
    reference = run(chain, state, steps=20)
    np.testing.assert_allclose(result.recording.q, reference.recording.q, atol=1e-12)


def test_the_benchmarks_scalar_double_pendulum_is_the_cpp_double_pendulum(chain, state):
    options = dict(dt=0.005, steps=400, stabilization=kktdae.Stabilization.critical(20.0))
    ours, reference = run(PyDoublePendulum(), state, **options), run(chain, state, **options)
    assert ours.summary.ok and reference.summary.ok
    np.testing.assert_allclose(ours.recording.q, reference.recording.q, rtol=0, atol=1e-11)
    np.testing.assert_allclose(ours.recording.energy, reference.recording.energy, rtol=0, atol=1e-10)

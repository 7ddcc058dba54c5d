"""Bad input from Python: ValueError (or TypeError for the wrong kind of object) naming what is wrong."""
import numpy as np
import pytest

import kktdae


def test_wrong_shapes_name_the_method_argument_and_shapes(chain, state):
    with pytest.raises(ValueError, match=r"PendulumChain\.bias: v must have shape \(6,\), got \(5,\)"):
        chain.bias(state.q, np.zeros(5))
    with pytest.raises(ValueError, match=r"PendulumChain\.constraint: q must have shape \(6,\), got \(2, 3\)"):
        chain.constraint(state.q.reshape(2, 3))
    with pytest.raises(ValueError, match=r"solve_kkt: q must have shape \(6,\)"):
        kktdae.solve_kkt(chain, np.zeros(3), np.zeros(6))


def test_wrong_dtypes_and_objects_are_type_errors(chain, state):
    with pytest.raises(TypeError, match=r"PendulumChain\.bias: q must have a real dtype \(float64\), got complex128"):
        chain.bias(state.q.astype(complex), state.v)
    with pytest.raises(TypeError, match=r"q must have a real dtype"):
        chain.constraint(np.array(["a"] * 6))
    with pytest.raises(TypeError, match=r"q must be a float array, got None"):
        chain.constraint(None)


def test_a_state_of_the_wrong_size_is_refused_before_the_run(chain):
    with pytest.raises(ValueError, match="q: size 3, expected 6"):
        kktdae.simulate(chain, kktdae.State(np.zeros(3)), kktdae.SimulationOptions(steps=3))
    with pytest.raises(ValueError, match=r"State: v must have shape \(3,\), got \(2,\)"):
        kktdae.State(np.zeros(3), np.zeros(2))


@pytest.mark.parametrize("field, value, words", [
    ("dt", -0.1, "dt"),
    ("steps", -5, "steps"),
    ("observe_every", 0, "observe_every"),
])
def test_invalid_options_are_value_errors_naming_the_field(chain, state, field, value, words):
    options = kktdae.SimulationOptions(**{field: value})
    with pytest.raises(ValueError, match=words):
        kktdae.simulate(chain, state, options)


def test_invalid_model_parameters_name_the_field():
    with pytest.raises(ValueError, match="masses"):
        kktdae.PendulumChain(kktdae.PendulumChainParams(masses=[1.0, -1.0], lengths=[1.0, 1.0]))
    with pytest.raises(ValueError, match="radius"):
        kktdae.CircleMass(kktdae.CircleMassParams(radius=0.0))
    with pytest.raises(ValueError, match="point_normal"):
        kktdae.FourBar(kktdae.FourBarParams(point_normal=0.0))


def test_unknown_keywords_and_enum_names_are_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument 'step'"):
        kktdae.SimulationOptions(step=10)
    with pytest.raises(ValueError, match=r"Integrator: unknown value 'rk5'; choose one of: euler, semi_implicit, rk4"):
        kktdae.SimulationOptions(integrator="rk5")
    with pytest.raises(ValueError, match="unknown value 'qr'"):
        kktdae.KktOptions(form="qr")


def test_guidance_refuses_what_has_no_answer():
    with pytest.raises(ValueError):
        kktdae.recommend_baumgarte("cvode_bdf", 0.005)
    with pytest.raises(ValueError):
        kktdae.recommend_baumgarte("semi_implicit", -0.005)


def test_state_arrays_are_read_only_copies(state):
    with pytest.raises(ValueError, match="read-only"):
        state.q[0] = 1.0
    moved = state.copy()
    moved.q = state.q + 1.0
    np.testing.assert_array_equal(moved.q, state.q + 1.0)


def test_a_run_of_unsaid_length_is_refused(chain, state):
    with pytest.raises(ValueError, match="neither steps nor end_time"):
        kktdae.simulate(chain, state, kktdae.SimulationOptions(integrator="rk4"))
    with pytest.raises(ValueError, match="neither steps nor end_time"):
        kktdae.simulate(chain, state)
    assert kktdae.simulate(chain, state, kktdae.SimulationOptions(end_time=0.05)).summary.steps == 10


@pytest.mark.parametrize("method, returned, expected", [
    ("nq", 6.0, r"FloatSizes\.nq\(\) must return int, got float 6\.0"),
    ("name", 3, r"FloatSizes\.name\(\) must return str, got int 3"),
    ("mass_structure", "diagonal", r"FloatSizes\.mass_structure\(\) must return MassStructure, got str 'diagonal'"),
])
def test_a_python_model_returning_the_wrong_type_names_the_method_the_type_and_the_value(state, method, returned,
                                                                                          expected):
    from py_models import PyPendulumChain

    class FloatSizes(PyPendulumChain):
        pass
    setattr(FloatSizes, method, lambda self: returned)
    with pytest.raises(TypeError, match=expected):
        kktdae.simulate(FloatSizes(2), state, kktdae.SimulationOptions(steps=2))

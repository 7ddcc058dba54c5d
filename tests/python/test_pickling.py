"""pickle, copy and deepcopy of the options structs and State (multiprocessing sends them so)."""
import copy
import pickle

import numpy as np
import pytest

import kktdae


def keyword_classes():
    """Every class built as Options(field=value, ...)."""
    found = []
    for name in sorted(dir(kktdae)):
        cls = getattr(kktdae, name)
        doc = getattr(getattr(cls, "__init__", None), "__doc__", "") or ""
        if isinstance(cls, type) and "each keyword assigned to the field" in doc:
            found.append(cls)
    assert len(found) >= 10, found
    return found


def fields(value):
    """A comparable picture of a value: options as {field: picture}, enums by label, arrays as lists."""
    if hasattr(value, "__getstate__") and isinstance(value.__getstate__(), dict) and \
            type(value).__module__.startswith("kktdae"):
        return {k: fields(v) for k, v in value.__getstate__().items()}
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tolist())
    if hasattr(value, "label"):
        return ("enum", type(value).__name__, value.label)
    if isinstance(value, list):
        return [fields(v) for v in value]
    return value


def test_the_acceptance_case_round_trips():
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.01, steps=10)
    back = pickle.loads(pickle.dumps(options))
    assert back.integrator == kktdae.Integrator.RK4 and back.dt == 0.01 and back.steps == 10
    assert back.end_time is None
    assert fields(back) == fields(options)


def test_nested_options_and_changed_defaults_survive_every_protocol():
    options = kktdae.SimulationOptions(integrator="generalized_alpha", dt=0.002, end_time=1.5, observe_every=4,
                                       stabilization=kktdae.Stabilization.critical(20.0),
                                       observed_multiplier="method", project_initial_state=True)
    options.kkt = kktdae.KktOptions(form="block")
    options.generalized_alpha.rho_inf = 0.6
    options.adaptive.atol_per_component = np.array([1e-8, 2e-8])
    options.divergence.enabled = False
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(options, protocol=protocol))
        assert fields(back) == fields(options)
        assert back.stabilization.describe() == options.stabilization.describe()
        assert back.generalized_alpha.rho_inf == 0.6 and back.kkt.form.label == "block"
    assert fields(options)["steps"] is None and fields(options)["end_time"] == 1.5


@pytest.mark.parametrize("cls", keyword_classes(), ids=lambda c: c.__name__)
def test_every_options_class_pickles_and_deep_copies(cls):
    made = cls()
    for back in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made), copy.copy(made)):
        assert type(back) is cls and back is not made
        assert fields(back) == fields(made)


def test_a_deep_copy_is_independent():
    options = kktdae.SimulationOptions(steps=10)
    twin = copy.deepcopy(options)
    twin.kkt.form = "block"
    twin.steps = 20
    assert options.steps == 10 and options.kkt.form.label == "schur"


def test_state_round_trips_bit_for_bit(chain):
    state = kktdae.State(chain.initial_state(0.0137).q, np.linspace(-1.0, 1.0, 6) / 3.0, 0.1 + 0.2)
    for back in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert back.t == state.t
        assert np.array_equal(back.q, state.q) and np.array_equal(back.v, state.v)
    with pytest.raises(ValueError, match="pickled state"):
        kktdae.State.__new__(kktdae.State).__setstate__((0.0, [1.0]))


def test_options_holding_python_callables_refuse_to_pickle_with_the_reason():
    options = kktdae.SimulationOptions(events=[kktdae.Event(name="ground", g=lambda t, q, v, lam: q[1])])
    with pytest.raises(Exception, match="pickle"):
        pickle.dumps(options)

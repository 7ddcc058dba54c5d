"""A Python method that the library would not call is refused when the class is made, never ignored:
overriding a model method on a subclass of a shipped (C++) model, or a method of ConstrainedSystem
that no run calls from Python (total_energy, jacobian_non_zeros). ModelWrapper is what to do instead."""
import numpy as np
import pytest

import kktdae
from py_models import PyPendulumChain

SHIPPED = [kktdae.PendulumChain, kktdae.SpringChain, kktdae.CircleMass, kktdae.PointOnPlane, kktdae.FourBar,
           kktdae.SliderCrank, kktdae.ParticleSystem, kktdae.AndrewsSqueezer, kktdae.CarAxis]


def rk4(steps=200):
    return kktdae.SimulationOptions(integrator="rk4", dt=0.005, steps=steps)


def test_overriding_bias_on_a_shipped_model_is_refused_at_class_creation_saying_what_to_do():
    with pytest.raises(TypeError) as refused:
        class H(kktdae.PendulumChain):
            def bias(self, q, v, t=0.0):
                return 2.0 * super().bias(q, v, t)
    message = str(refused.value)
    assert "H.bias" in message and "PendulumChain" in message
    assert "ModelWrapper" in message  # what to do instead


@pytest.mark.parametrize("shipped", SHIPPED, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", ["bias", "mass_matrix", "constraint", "total_energy", "nq", "is_conservative"])
def test_every_shipped_model_refuses_an_overriding_model_method(shipped, method):
    with pytest.raises(TypeError, match=rf"Sub\.{method}"):
        type("Sub", (shipped,), {method: lambda self, *args: None})


def test_a_mixin_that_brings_a_model_method_is_refused_too():
    class Doubled:
        def bias(self, q, v, t=0.0):
            return 2.0 * super().bias(q, v, t)

    with pytest.raises(TypeError, match=r"Heavy\.bias"):
        class Heavy(Doubled, kktdae.PendulumChain):
            pass


def test_a_subclass_that_adds_helpers_only_runs_as_the_shipped_model():
    class Named(kktdae.PendulumChain):
        def tip_height(self, q):
            return float(self.tip(q)[1])

    chain, named = kktdae.PendulumChain(2), Named(2)
    state = chain.initial_state(0.3)
    a, b = kktdae.simulate(chain, state, rk4()), kktdae.simulate(named, state, rk4())
    np.testing.assert_array_equal(a.recording.q, b.recording.q)
    assert named.tip_height(state.q) == pytest.approx(chain.tip(state.q)[1])


@pytest.mark.parametrize("method", ["total_energy", "jacobian_non_zeros"])
def test_a_python_model_refuses_the_methods_no_run_calls(method):
    with pytest.raises(TypeError, match=rf"Model\.{method}"):
        type("Model", (PyPendulumChain,), {method: lambda self, *args: 0})


def test_the_model_wrapper_honours_an_override_and_forwards_the_rest():
    chain = kktdae.PendulumChain(2)

    class DoubleGravity(kktdae.ModelWrapper):
        def bias(self, q, v, t):
            return 2.0 * self.model.bias(q, v, t)

        def potential_energy(self, q, t):
            return 2.0 * self.model.potential_energy(q, t)

    heavy = DoubleGravity(chain)
    state = chain.initial_state(0.3)
    assert heavy.nq() == 6 and heavy.nc() == 2 and heavy.is_conservative()
    np.testing.assert_array_equal(heavy.bias(state.q, state.v, 0.0), 2.0 * chain.bias(state.q, state.v))
    plain, doubled = kktdae.simulate(chain, state, rk4()), kktdae.simulate(heavy, state, rk4())
    assert plain.summary.ok and doubled.summary.ok, doubled.summary.message
    # Twice the gravity: the chain falls faster; T + V (with the doubled V) is still conserved.
    assert doubled.recording.q[-1, 1] != plain.recording.q[-1, 1]
    assert np.abs(np.diff(doubled.recording.energy)).max() < 1e-6
    # Unchanged methods give the wrapped model's trajectory to round-off.
    same = kktdae.simulate(kktdae.ModelWrapper(chain), state, rk4())
    np.testing.assert_allclose(same.recording.q, plain.recording.q, rtol=0, atol=1e-12)

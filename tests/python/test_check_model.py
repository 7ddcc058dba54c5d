"""kktdae.check_model: the library's checkModel from Python, its findings as Python objects. It catches
the mistakes check_derivatives passes: gravity on the wrong axis (with the opt-in conservative-bias
check), a kinetic energy without its ½, a non-symmetric M."""
import numpy as np
import pytest

import kktdae
from py_models import PyPendulumChain


class WrongAxisGravity(PyPendulumChain):
    """Gravity pushed along x in h while V still measures height along y."""

    def bias(self, q, v, t):
        h = np.zeros(self.nq())
        h[0::3] = self.masses * self.gravity
        return h


class NoHalf(PyPendulumChain):
    def kinetic_energy(self, q, v):
        return float(self._diag @ (v * v))


class Skewed(PyPendulumChain):
    def __init__(self):
        super().__init__(2, general_mass=True)

    def mass_matrix(self, q):
        M = np.diag(self._diag)
        M[0, 1] = 0.1  # M[1, 0] stays 0
        return M


def test_the_shipped_and_the_python_chain_pass(chain, py_chain, moving_state):
    for model in (chain, py_chain):
        report = kktdae.check_model(model, [moving_state], kktdae.ModelCheckOptions(check_conservative_bias=True))
        assert report.ok, report.describe()
        assert report.findings == [] and report.omitted_findings == 0
        assert len(report.states) == 1
    drawn = kktdae.check_model(chain)  # no states: options.random_states random ones
    assert drawn.ok and len(drawn.states) == kktdae.ModelCheckOptions().random_states


def test_wrong_axis_gravity_passes_check_derivatives_but_not_the_conservative_bias_check(moving_state):
    model = WrongAxisGravity(2)
    assert kktdae.check_derivatives(model, moving_state.q, moving_state.v).worst_relative_error() < 1e-8
    assert kktdae.check_model(model, [moving_state]).ok  # the check is opt-in
    report = kktdae.check_model(model, [moving_state], kktdae.ModelCheckOptions(check_conservative_bias=True))
    assert not report.ok
    finding = report.findings[0]
    assert finding.problem == kktdae.ModelProblem.BIAS_NOT_CONSERVATIVE
    assert finding.method == "bias"
    assert finding.entry == (0, -1)  # h[0]: x of the first mass, where dV/dx = 0
    assert finding.expected == pytest.approx(0.0, abs=1e-6) and finding.got == pytest.approx(9.81)
    np.testing.assert_array_equal(finding.state.q, moving_state.q)
    assert finding.state_index == 0
    assert {f.entry for f in report.findings} == {(0, -1), (1, -1), (3, -1), (4, -1)}
    assert "bias" in finding.describe() and "bias" in report.describe()


def test_a_kinetic_energy_without_its_half_and_an_asymmetric_mass_are_found(moving_state):
    energy = kktdae.check_model(NoHalf(2), [moving_state])
    assert [f.problem for f in energy.findings] == [kktdae.ModelProblem.KINETIC_ENERGY_MISMATCH]
    assert energy.findings[0].got == pytest.approx(2.0 * energy.findings[0].expected)

    skewed = kktdae.check_model(Skewed(), [moving_state])
    asymmetric = [f for f in skewed.findings if f.problem == kktdae.ModelProblem.MASS_ASYMMETRIC]
    assert asymmetric and asymmetric[0].method == "massMatrix"


def test_an_exception_in_a_method_is_a_finding_but_keyboard_interrupt_propagates(moving_state):
    class Raises(PyPendulumChain):
        def constraint_bias(self, q, v, t):
            raise ValueError("not yet written")

    report = kktdae.check_model(Raises(2), [moving_state])
    threw = [f for f in report.findings if f.problem == kktdae.ModelProblem.THREW]
    assert threw and threw[0].method == "constraintBias" and "not yet written" in threw[0].detail

    class Interrupted(PyPendulumChain):
        def constraint_bias(self, q, v, t):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        kktdae.check_model(Interrupted(2), [moving_state])


def test_invalid_options_and_states_are_value_errors_naming_them(chain):
    with pytest.raises(ValueError, match="random_states"):
        kktdae.check_model(chain, [], kktdae.ModelCheckOptions(random_states=1))
    with pytest.raises(ValueError, match=r"states\[0\]\.q"):
        kktdae.check_model(chain, [kktdae.State(np.zeros(3))])

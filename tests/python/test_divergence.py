"""A run that blows up on the constraint manifold ends as DIVERGED through the energy rule, for the
shipped chain and for a Python model that declares itself conservative; the rule's options are
settable from Python."""
import math

import kktdae
from py_models import PyPendulumChain


class ConservativePyChain(PyPendulumChain):
    """The Python chain declaring what the C++ chain declares: T + V is a first integral."""

    def is_conservative(self):
        return True

    def energy_scale(self):
        return float(self.masses.sum()) * self.gravity * self.links * self.length


def chapter_projection(model, state, **divergence):
    options = kktdae.SimulationOptions(dt=0.005, steps=4000, stabilization=kktdae.Stabilization.projection(),
                                       divergence=kktdae.DivergenceOptions(**divergence))
    return kktdae.simulate(model, state, options, record=False).summary


def test_the_chapter_projection_run_ends_diverged_by_its_energy(chain, state):
    summary = chapter_projection(chain, state)
    assert summary.status == kktdae.RunStatus.DIVERGED
    assert "total energy" in summary.message
    assert 9.0 < summary.t_final < 11.5
    assert chain.is_conservative() and chain.energy_scale() == 2 * 9.81 * 2


def test_a_python_model_that_declares_itself_conservative_gets_the_energy_rule(state):
    declared = chapter_projection(ConservativePyChain(2), state)
    assert declared.status == kktdae.RunStatus.DIVERGED, declared.message
    assert "energy scale 39.24" in declared.message
    # Undeclared (the default): no energy rule, and φ at round-off leaves the other rules quiet.
    undeclared = chapter_projection(PyPendulumChain(2), state)
    assert undeclared.ok, undeclared.message
    assert not PyPendulumChain(2).is_conservative()


def test_divergence_options_switch_the_energy_rule_off_and_validate_by_name(chain, state):
    assert chapter_projection(chain, state, energy_factor=math.inf).ok
    assert chapter_projection(chain, state, enabled=False).ok
    bad = kktdae.DivergenceOptions(runaway_check_every=0)
    try:
        bad.validate()
    except ValueError as error:
        assert "divergence.runaway_check_every" in str(error)
    else:
        raise AssertionError("runaway_check_every = 0 was accepted")

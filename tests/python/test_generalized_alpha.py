"""The options of the implicit integrators from Python: GeneralizedAlphaOptions (ρ∞, HHT's α, the Newton,
JacobianReuse), RattleOptions, AdaptiveOptions.newton_matrix with Summary.newton_model_evaluations, and
recommend_baumgarte's adaptive inputs. The runs' numbers against the theory they follow, bad values as
ValueErrors naming the field. (tests/python/test_chapter_script.py checks the same runs against the C++ app.)"""
import numpy as np
import pytest

import kktdae


def run(system, state, **fields):
    result = kktdae.simulate(system, state, kktdae.SimulationOptions(**fields))
    assert result.summary.ok, result.summary.message
    return result


def lambda_roughness(lam):
    """RMS of λ's step-to-step second difference: the high-frequency content ρ∞ < 1 damps."""
    return float(np.sqrt(np.mean(np.diff(lam, n=2, axis=0) ** 2)))


@pytest.mark.parametrize("enum, labels", [
    (kktdae.JacobianReuse, ["every_iteration", "every_step", "until_slow"]),
    (kktdae.NewtonMatrix, ["analytic", "difference_quotient"]),
    (kktdae.IterationMatrix, ["auto", "dense", "sparse"]),
])
def test_the_enums_round_trip_through_their_labels(enum, labels):
    members = list(enum.__members__.values())
    assert [m.label for m in members] == labels
    for member in members:
        assert enum(member.label) == member
        assert enum(member.name) == member
    with pytest.raises(ValueError, match=labels[-1]):  # the message lists the choices
        enum("sometimes")


def test_options_take_keywords_and_labels_and_reach_simulation_options():
    options = kktdae.GeneralizedAlphaOptions(rho_inf=0.5, jacobian_reuse="until_slow", max_step_halvings=2)
    assert options.rho_inf == 0.5 and options.max_step_halvings == 2
    assert options.jacobian_reuse == kktdae.JacobianReuse.UNTIL_SLOW
    assert "rho_inf=0.5" in repr(options)
    simulation = kktdae.SimulationOptions(integrator="generalized_alpha", generalized_alpha=options,
                                          rattle=kktdae.RattleOptions(newton_max_iterations=7),
                                          adaptive=kktdae.AdaptiveOptions(newton_matrix="difference_quotient"))
    assert simulation.generalized_alpha.jacobian_reuse == kktdae.JacobianReuse.UNTIL_SLOW
    assert simulation.rattle.newton_max_iterations == 7
    assert simulation.adaptive.newton_matrix == kktdae.NewtonMatrix.DIFFERENCE_QUOTIENT
    # Copies in, copies out (pybind11's def_readwrite of a struct): set a field through the parent.
    simulation.generalized_alpha.rho_inf = 0.25
    assert simulation.generalized_alpha.rho_inf == 0.25


@pytest.mark.parametrize("field, value", [
    ("rho_inf", 1.5), ("rho_inf", -0.1), ("hht_alpha", -0.5), ("hht_alpha", 0.1), ("newton_tolerance", 0.0),
    ("newton_max_iterations", 0), ("slow_convergence_ratio", 1.0), ("max_step_halvings", -1),
])
def test_bad_generalized_alpha_values_raise_value_error_naming_the_field(chain, state, field, value):
    options = kktdae.GeneralizedAlphaOptions(**{field: value})
    with pytest.raises(ValueError, match=f"generalized_alpha.{field}"):
        options.validate()
    integrator = "hht" if field == "hht_alpha" else "generalized_alpha"
    with pytest.raises(ValueError, match=f"generalized_alpha.{field}"):
        kktdae.simulate(chain, state, kktdae.SimulationOptions(integrator=integrator, steps=5,
                                                               generalized_alpha=options))


def test_other_bad_values_raise_value_error_naming_the_field():
    with pytest.raises(ValueError, match="newton_max_iterations"):
        kktdae.RattleOptions(newton_max_iterations=0).validate()
    with pytest.raises(ValueError, match="zeta"):
        kktdae.BaumgarteGuidanceOptions(zeta=-1.0).validate()
    with pytest.raises(ValueError, match="motion_rate"):
        kktdae.recommend_baumgarte("cvode_bdf", 0.01)  # an adaptive integrator needs the motion's rate
    with pytest.raises(ValueError, match="no Baumgarte gain"):
        kktdae.recommend_baumgarte("generalized_alpha", 0.01)


def test_chung_hulbert_and_hht_parameters_follow_their_formulas():
    for rho in (0.0, 0.3, 0.8, 1.0):
        p = kktdae.chung_hulbert_parameters(rho)
        assert p.alpha_m == pytest.approx((2 * rho - 1) / (rho + 1))
        assert p.alpha_f == pytest.approx(rho / (rho + 1))
        assert p.gamma == pytest.approx(0.5 + p.alpha_f - p.alpha_m)
        assert p.beta == pytest.approx(0.25 * (p.gamma + 0.5) ** 2)
    p = kktdae.hht_parameters(-0.3)
    assert (p.alpha_m, p.alpha_f) == (0.0, pytest.approx(0.3))
    assert p.gamma == pytest.approx(0.8) and p.beta == pytest.approx(1.3 ** 2 / 4)
    with pytest.raises(ValueError, match="rho_inf"):
        kktdae.chung_hulbert_parameters(1.5)


def test_rho_inf_and_hht_alpha_reach_the_step(chain, state):
    fields = dict(dt=0.01, steps=100)
    default = run(chain, state, integrator="generalized_alpha", **fields).recording.q[-1]
    undamped = run(chain, state, integrator="generalized_alpha",
                   generalized_alpha=kktdae.GeneralizedAlphaOptions(rho_inf=1.0), **fields).recording.q[-1]
    trapezoidal = run(chain, state, integrator="hht",
                      generalized_alpha=kktdae.GeneralizedAlphaOptions(hht_alpha=0.0), **fields).recording.q[-1]
    # ρ∞ = 1 (α_m = α_f = ½) and α = 0 (α_m = α_f = 0) are both the trapezoidal rule in (q, q̇): one end
    # state up to the Newton tolerance, while the default ρ∞ = 0.8 damps and ends elsewhere.
    assert np.abs(undamped - trapezoidal).max() < 1e-10
    assert np.abs(undamped - default).max() > 1e-6


def test_dense_and_sparse_iteration_matrices_take_the_same_steps_on_a_long_chain():
    chain = kktdae.PendulumChain(kktdae.PendulumChainParams.uniform(8))
    state = chain.initial_state(0.3)
    fields = dict(integrator="generalized_alpha", dt=0.01, steps=30)
    dense = run(chain, state, generalized_alpha=kktdae.GeneralizedAlphaOptions(iteration_matrix="dense"), **fields)
    sparse = run(chain, state, generalized_alpha=kktdae.GeneralizedAlphaOptions(iteration_matrix="sparse"), **fields)
    assert np.abs(dense.recording.q - sparse.recording.q).max() < 1e-10
    # KLU's matrix comes from colored differences: far fewer model calls than nq dense columns.
    assert sparse.summary.rhs_evaluations < dense.summary.rhs_evaluations


def test_rho_inf_below_one_damps_the_multipliers_high_frequencies(chain):
    # The double pendulum from tilt 0.1 at a coarse dt over 4 s, as in the C++ test
    # (tests/unit/integrators/generalized_alpha_test.cpp): λ's step-to-step roughness at ρ∞ = 1 (no
    # numerical damping) against ρ∞ = 0.5.
    def roughness(rho):
        rec = run(chain, chain.initial_state(0.1), integrator="generalized_alpha", dt=0.02, steps=200,
                  generalized_alpha=kktdae.GeneralizedAlphaOptions(rho_inf=rho)).recording
        return lambda_roughness(rec.lam)
    undamped, damped = roughness(1.0), roughness(0.5)
    assert undamped > 2.0 * damped, (undamped, damped)


def test_the_newton_matrix_choice_moves_the_work_between_counters(chain, state):
    def summary(matrix):
        return run(chain, state, integrator="cvode_bdf", dt=0.01, steps=100,
                   adaptive=kktdae.AdaptiveOptions(rtol=1e-8, atol=1e-10, newton_matrix=matrix)).summary
    analytic, quotient = summary("analytic"), summary("difference_quotient")
    assert analytic.jacobian_evaluations > 0 and quotient.jacobian_evaluations > 0
    assert analytic.newton_model_evaluations > 0   # the derivatives' model calls
    assert quotient.newton_model_evaluations == 0  # a difference quotient's calls are rhs_evaluations
    assert quotient.rhs_evaluations > analytic.rhs_evaluations


def test_rattle_options_reach_the_step(chain, state):
    ok = run(chain, state, integrator="rattle", dt=0.005, steps=50)
    assert ok.summary.newton_iterations > 50  # more than one iteration per step
    capped = kktdae.simulate(chain, state, kktdae.SimulationOptions(
        integrator="rattle", dt=0.005, steps=50, rattle=kktdae.RattleOptions(newton_max_iterations=1)))
    assert not capped.summary.ok
    assert capped.summary.failed_step == 1


def test_recommend_baumgarte_for_an_adaptive_integrator_uses_the_motion_rate_and_its_cap():
    # ω = Ω without a mean step; ω ≤ cap / mean_step with one (docs/baumgarte.md).
    rate = 3.0
    free = kktdae.recommend_baumgarte("cvode_bdf", 0.01, motion_rate=rate)
    assert free.omega == pytest.approx(rate)
    cap = kktdae.adaptive_stiffness_cap("cvode_bdf")
    capped = kktdae.recommend_baumgarte("cvode_bdf", 0.01, motion_rate=rate, mean_step=2.0 * cap / rate)
    assert capped.omega == pytest.approx(rate / 2.0)
    # options= is the base, each keyword given overrides its field.
    base = kktdae.BaumgarteGuidanceOptions(motion_rate=rate, zeta=2.0)
    both = kktdae.recommend_baumgarte("cvode_bdf", 0.01, options=base, motion_rate=2 * rate)
    assert both.omega == pytest.approx(2 * rate)
    assert both.stabilization.alpha == pytest.approx(2.0 * 2 * rate)  # α = ζ ω with the base's ζ


def test_the_measured_motion_rate_of_a_small_swing_is_the_pendulum_frequency():
    pendulum = kktdae.PendulumChain(1)
    start = pendulum.initial_state(np.pi / 2 - 0.05)  # 0.05 rad from hanging straight down
    scale = kktdae.measure_motion_time_scale(pendulum, start, 4.0, "cvode_bdf", 1e-8)
    assert scale.summary.ok, scale.summary.message
    assert scale.motion_rate == pytest.approx(np.sqrt(9.81 / 1.0), rel=0.02)
    assert 0.0 < scale.mean_step < 4.0

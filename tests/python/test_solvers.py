"""The KKT solve, the projection, the Baumgarte guidance and the stability limits from Python,
checked against the equations they solve."""
import numpy as np
import pytest

import kktdae


@pytest.mark.parametrize("form", ["schur", "block"])
def test_solve_kkt_satisfies_both_block_rows(chain, moving_state, form):
    q, v = moving_state.q, moving_state.v
    alpha, beta = 3.0, 7.0
    s = kktdae.solve_kkt(chain, q, v, stabilization=kktdae.Stabilization.baumgarte(alpha, beta),
                         options=kktdae.KktOptions(form=form))
    assert s.ok and s.status == kktdae.KktStatus.OK
    M, h, J = chain.mass_matrix(q), chain.bias(q, v), chain.constraint_jacobian(q)
    gamma, phi = chain.constraint_bias(q, v), chain.constraint(q)
    np.testing.assert_allclose(M @ s.qdd + h - J.T @ s.lam, 0.0, atol=1e-12)
    phi_dot = J @ v
    np.testing.assert_allclose(J @ s.qdd + gamma + 2 * alpha * phi_dot + beta**2 * phi, 0.0, atol=1e-12)
    np.testing.assert_array_equal(s.jacobian, J)
    np.testing.assert_allclose(s.phi_dot, phi_dot, atol=1e-15)


def test_a_singular_constraint_set_comes_back_as_a_failed_status_not_nan():
    # Two identical links on one particle: J has two equal rows.
    params = kktdae.ParticleSystemParams(
        dimension=2, particles=[kktdae.ParticleSpec(1.0)], anchors=[np.zeros(3)],
        distances=[kktdae.DistanceConstraintSpec(kktdae.PointRef.particle(0), kktdae.PointRef.anchor(0), 1.0)] * 2)
    model = kktdae.ParticleSystem(params)
    q, v = np.array([1.0, 0.0]), np.zeros(2)
    failed = kktdae.solve_kkt(model, q, v)
    assert not failed.ok and failed.status in (kktdae.KktStatus.SINGULAR, kktdae.KktStatus.ILL_CONDITIONED)
    assert failed.message
    fixed = kktdae.solve_kkt(model, q, v, options=kktdae.KktOptions(rank_deficiency="minimum_norm"))
    assert fixed.ok and fixed.rank_deficient
    # At rest with the rod along x, the rod holds x and gravity pulls the mass straight down.
    np.testing.assert_allclose(fixed.qdd, [0.0, -9.81], atol=1e-12)


def test_project_to_manifold_puts_a_stretched_chain_back(chain, state):
    stretched = kktdae.State(state.q * 1.05, np.ones(6), 0.0)
    projected, report = kktdae.project_to_manifold(chain, stretched)
    assert report.converged and report.phi_before > 1e-2
    assert np.max(np.abs(chain.constraint(projected.q))) <= 1e-12
    np.testing.assert_allclose(chain.constraint_jacobian(projected.q) @ projected.v, 0.0, atol=1e-12)
    np.testing.assert_array_equal(stretched.q, state.q * 1.05)  # the input is not modified


def test_recommend_baumgarte_uses_half_the_semi_implicit_limit():
    limit = kktdae.baumgarte_stability_limit("semi_implicit", 1.0)
    assert limit == pytest.approx(2.0 * (np.sqrt(2.0) - 1.0), rel=1e-12)  # 2(√(ζ²+1) − ζ)
    rec = kktdae.recommend_baumgarte(kktdae.Integrator.SEMI_IMPLICIT, 0.005)
    assert rec.omega == pytest.approx(0.5 * limit / 0.005, rel=1e-12)
    assert rec.stabilization.alpha == pytest.approx(rec.omega) and rec.stabilization.beta == pytest.approx(rec.omega)
    assert rec.reasoning


@pytest.mark.parametrize("integrator", ["euler", "semi_implicit", "rk4"])
def test_the_spectral_radius_crosses_one_at_the_stability_limit(integrator):
    # ζ = 0.5: distinct eigenvalues, well conditioned (at ζ = 1 the step matrix is nearly
    # defective and any two eigenvalue computations agree only to about √eps).
    zeta, dt = 0.5, 0.01
    limit = kktdae.baumgarte_stability_limit(integrator, zeta)

    def gains(fraction):
        omega = fraction * limit / dt
        return zeta * omega, omega

    inside = kktdae.error_step_spectral_radius(integrator, dt, *gains(0.98))
    outside = kktdae.error_step_spectral_radius(integrator, dt, *gains(1.02))
    assert inside < 1.0 < outside
    radius = np.max(np.abs(np.linalg.eigvals(kktdae.error_step_matrix(integrator, dt, *gains(0.98)))))
    assert radius == pytest.approx(inside, rel=1e-12)


def test_baumgarte_error_at_solves_the_error_ode():
    alpha, beta, e0, e_dot0 = 2.0, 5.0, 0.1, -0.3
    h = 1e-4
    for t in (0.0, 0.3, 1.1):
        e, e_dot = kktdae.baumgarte_error_at(alpha, beta, e0, e_dot0, t + h)
        em, e_dotm = kktdae.baumgarte_error_at(alpha, beta, e0, e_dot0, t - h) if t > 0 else (None, None)
        e_mid, e_dot_mid = kktdae.baumgarte_error_at(alpha, beta, e0, e_dot0, t)
        if t > 0:
            e_ddot = (e_dot - e_dotm) / (2 * h)
            assert e_ddot + 2 * alpha * e_dot_mid + beta**2 * e_mid == pytest.approx(0.0, abs=1e-6)
            assert (e - em) / (2 * h) == pytest.approx(e_dot_mid, rel=1e-6)
    assert kktdae.baumgarte_error_at(alpha, beta, e0, e_dot0, 0.0) == pytest.approx((e0, e_dot0))

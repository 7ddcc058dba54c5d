"""The shipped models from Python: numpy in and out, derivatives checked, terms consistent."""
import numpy as np
import pytest

import kktdae


def shipped_models():
    """Every shipped model with a state off rest on (or near) its manifold."""
    chain = kktdae.PendulumChain(3)
    s = chain.initial_state(0.2)
    yield "pendulum_chain", chain, kktdae.State(s.q, np.linspace(-0.3, 0.4, 9))
    springs = kktdae.SpringChain(kktdae.SpringChainParams(chain=kktdae.PendulumChainParams.uniform(3),
                                                          joint_stiffness=40.0))
    bent = springs.initial_state(0.2).q + np.linspace(-0.1, 0.1, 9)
    yield "spring_chain", springs, kktdae.State(bent, np.linspace(-0.3, 0.4, 9))
    circle = kktdae.CircleMass()
    yield "circle_mass", circle, kktdae.State(np.array([0.6, -0.8]), np.array([0.8, 0.6]))
    plane = kktdae.PointOnPlane(kktdae.PointOnPlaneParams(dimension=3))
    yield "point_on_plane", plane, plane.off_manifold_state(0.01, -0.02, 0.3)
    four = kktdae.FourBar()
    yield "four_bar", four, kktdae.four_bar_state(kktdae.FourBarParams(), 0.7, 1.5)
    slider = kktdae.SliderCrank()
    yield "slider_crank", slider, kktdae.slider_crank_state(kktdae.SliderCrankParams(), 0.4, -2.0)
    twin = kktdae.ParticleSystem(kktdae.four_bar_twin(kktdae.FourBarParams()))
    yield "particle_system", twin, particle_state_from(twin)


def particle_state_from(system):
    """A moving state of a particle system made through make_state (positions from the four-bar)."""
    params = kktdae.FourBarParams()
    q = kktdae.assemble_four_bar(params, 0.7)
    b = params.crank * np.array([np.cos(q[0]), np.sin(q[0]), 0.0])
    c = np.array([params.ground, 0.0, 0.0]) + params.rocker * np.array([np.cos(q[2]), np.sin(q[2]), 0.0])
    along = np.array([np.cos(q[1]), np.sin(q[1]), 0.0])
    normal = np.array([-np.sin(q[1]), np.cos(q[1]), 0.0])
    p = b + params.point_along * along + params.point_normal * normal
    return system.make_state([b, c, p], [[0.1, 0.2, 0.0], [-0.3, 0.1, 0.0], [0.2, -0.1, 0.0]])


MODELS = list(shipped_models())


@pytest.mark.parametrize("label, model, state", MODELS, ids=[m[0] for m in MODELS])
def test_shipped_model_derivatives_pass_finite_differences(label, model, state):
    report = kktdae.check_derivatives(model, state.q, state.v, state.t)
    assert report.worst_relative_error() < 1e-7, report.describe()
    assert report.jacobian_scale > 0.0


@pytest.mark.parametrize("label, model, state", MODELS, ids=[m[0] for m in MODELS])
def test_shipped_model_methods_return_arrays_of_the_documented_shapes(label, model, state):
    nq, nc, nu = model.nq(), model.nc(), model.nu()
    q, v = state.q, state.v
    shapes = {
        "mass_matrix": (model.mass_matrix(q), (nq, nq)),
        "bias": (model.bias(q, v, 0.0), (nq,)),
        "input_map": (model.input_map(q, 0.0), (nu, nq)),
        "constraint": (model.constraint(q), (nc,)),
        "constraint_jacobian": (model.constraint_jacobian(q), (nc, nq)),
        "constraint_time_derivative": (model.constraint_time_derivative(q), (nc,)),
        "constraint_bias": (model.constraint_bias(q, v), (nc,)),
    }
    for method, (value, shape) in shapes.items():
        assert isinstance(value, np.ndarray) and value.dtype == np.float64, method
        assert value.shape == shape, method
        assert np.all(np.isfinite(value)), method
    M = shapes["mass_matrix"][0]
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    assert np.all(np.linalg.eigvalsh(M) > 0.0)
    # T = ½ vᵀ M v from the model's own M; the total is T + V.
    assert model.kinetic_energy(q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-12)
    assert model.total_energy(q, v, 0.0) == pytest.approx(model.kinetic_energy(q, v) + model.potential_energy(q), rel=1e-12)


@pytest.mark.parametrize("label, model, state", MODELS, ids=[m[0] for m in MODELS])
def test_shipped_model_simulates_with_rk4_and_keeps_its_energy(label, model, state):
    projected, report = kktdae.project_to_manifold(model, state)
    assert report.converged, report.message
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.002, steps=200,
                                       stabilization=kktdae.Stabilization.critical(5.0))
    result = kktdae.simulate(model, projected, options)
    assert result.summary.ok, result.summary.message
    energy = result.recording.energy
    scale = max(1.0, abs(energy[0]))
    assert np.max(np.abs(energy - energy[0])) < 1e-4 * scale
    assert np.max(result.recording.violation) < 1e-6


def test_pendulum_chain_helpers_match_the_seed_definitions(chain, state):
    q = state.q
    assert chain.links == 2
    np.testing.assert_allclose(chain.tip(q), q[3:])
    assert chain.energy_scale() == pytest.approx(2.0 * 9.81 * 2.0)
    stretched = q.copy()
    stretched[3:] *= 1.1  # tip moved outward: the second link is longer
    d = stretched[3:] - stretched[:3]
    assert chain.link_length_violation(stretched) == pytest.approx(abs(np.linalg.norm(d) - 1.0), rel=1e-14)


def test_particle_system_from_a_chain_is_the_chain():
    chain = kktdae.PendulumChain(kktdae.PendulumChainParams(masses=[1.0, 2.0], lengths=[1.0, 0.5]))
    twin = kktdae.ParticleSystem(kktdae.ParticleSystemParams.from_pendulum_chain(chain.params))
    s = chain.initial_state(0.1)
    v = np.linspace(-1.0, 1.0, 6)
    np.testing.assert_array_equal(twin.mass_matrix(s.q), chain.mass_matrix(s.q))
    np.testing.assert_allclose(twin.constraint_jacobian(s.q), chain.constraint_jacobian(s.q), atol=1e-15)
    np.testing.assert_allclose(twin.constraint_bias(s.q, v), chain.constraint_bias(s.q, v), rtol=1e-14)


def test_params_take_keywords_and_reprs_name_the_type():
    params = kktdae.FourBarParams(crank=1.2, gravity=0.0)
    assert params.crank == 1.2 and params.gravity == 0.0 and params.rocker == 3.0
    assert repr(params).startswith("FourBarParams(ground=4.0, crank=1.2")
    assert repr(kktdae.PendulumChain(2)) == "<PendulumChain 'pendulum_chain(2)' nq=6 nc=2 nu=0>"


@pytest.mark.parametrize("name, nq, nc, scored, t_end", [("andrews", 7, 6, 7, 0.03), ("caraxis", 4, 2, 4, 3.0),
                                                         ("heavy_top", 9, 6, 3, 2.0),
                                                         ("andrews_bodies", 21, 20, 7, 0.03)])
def test_test_set_cases_come_with_their_model_and_a_consistent_start(name, nq, nc, scored, t_end):
    case = kktdae.test_set_case(name)
    model, start = case["system"], case["start"]
    assert (model.nq(), model.nc()) == (nq, nc)
    assert (case["scored_components"], case["t_end"]) == (scored, t_end)
    assert name.replace("caraxis", "car axis").replace("_", " ").split()[0] in case["title"].lower().replace("'", "")
    # On the manifold and moving along it (the car axis' constraint moves with t: φ̇ = J v + ∂φ/∂t).
    assert np.max(np.abs(model.constraint(start.q, start.t))) < 1e-8
    phidot = model.constraint_jacobian(start.q, start.t) @ start.v + model.constraint_time_derivative(start.q, start.t)
    assert np.max(np.abs(phidot)) < 1e-8
    report = kktdae.check_derivatives(model, start.q, start.v, start.t)
    assert report.worst_relative_error() < 1e-6, report.describe()


def test_test_set_case_refuses_an_unknown_name():
    with pytest.raises(ValueError, match="unknown name 'squeezer'.*andrews, caraxis, heavy_top, andrews_bodies"):
        kktdae.test_set_case("squeezer")

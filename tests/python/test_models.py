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


@pytest.mark.parametrize("name", ["andrews", "caraxis"])
def test_a_test_set_run_is_scored_against_the_cases_own_reference(name):
    case = kktdae.test_set_case(name)
    reference = case["reference"]
    assert reference["t_end"] == case["t_end"] and "IVP Test Set" in reference["source"]
    assert reference["published"] and {"solver", "tolerance", "scd"} <= set(reference["published"][0])
    k = case["scored_components"]
    np.testing.assert_array_equal(case["scored_reference"], reference["q"][:k])
    # IDA with GGL at 1e-8 to t_end: the Test Set's solvers score about as many digits at that tolerance.
    options = kktdae.SimulationOptions(integrator="ida_ggl", dt=case["t_end"], end_time=case["t_end"],
                                       adaptive=kktdae.AdaptiveOptions(rtol=1e-8, atol=1e-8))
    end = kktdae.simulate(case["system"], case["start"], options).recording.q[-1]
    scd = kktdae.significant_correct_digits(case["scored_values"](end), case["scored_reference"])
    assert 5.0 < scd < 12.0, scd
    # scd is −log10 of the worst relative error: a reference moved by 1e-6 relative scores 6 digits.
    moved = case["scored_reference"] * (1.0 + 1e-6)
    assert kktdae.significant_correct_digits(moved, case["scored_reference"]) == pytest.approx(6.0, abs=1e-6)
    assert kktdae.significant_correct_digits(case["scored_reference"], case["scored_reference"]) == np.inf


def test_heavy_tops_score_is_its_displacement():
    case = kktdae.test_set_case("heavy_top")
    assert case["scored_name"] == "displacement" and case["scored_reference"].shape == (3,)
    start = case["start"]
    # At the start the displacement R X − X is zero.
    np.testing.assert_allclose(case["scored_values"](start.q), np.zeros(3), atol=1e-15)


def test_shipped_models_read_their_sizes_as_numbers_and_as_methods():
    chain = kktdae.PendulumChain(2)
    assert (chain.nq, chain.nc, chain.nu) == (6, 2, 0) and (chain.nq(), chain.nc(), chain.nu()) == (6, 2, 0)
    assert isinstance(chain.nq, int) and np.zeros(chain.nq).shape == (6,) and repr(chain.nq) == "6"
    with pytest.raises(AttributeError):
        chain.nq = 7
    four = kktdae.FourBar()
    assert (four.nq, four.nc, four.nu) == (3, 2, 1)
    top = kktdae.test_set_case("heavy_top")["system"]
    assert (top.nq, top.nc) == (9, 6)


def test_state_takes_the_chapters_particle_arrays():
    chain = kktdae.PendulumChain(2)
    q = np.array([[1.0, -0.01, 0.0], [2.0, -0.02, 0.0]])  # the chapter's (N, 3): one row per particle
    v = np.array([[0.0, 0.1, 0.0], [0.0, 0.2, 0.0]])
    state = kktdae.State(q, v)
    np.testing.assert_array_equal(state.q, q.ravel())
    np.testing.assert_array_equal(state.v, v.ravel())
    assert state.q.shape == (6,) and chain.link_length_violation(state.q) == chain.link_length_violation(q.ravel())
    with pytest.raises(ValueError, match=r"State: q must have shape \(nq,\) or \(N, 3\), got \(3, 2\)"):
        kktdae.State(q.T)
    with pytest.raises(ValueError, match=r"State: v must have shape \(6,\) or \(2, 3\), got \(3, 3\)"):
        kktdae.State(q, np.zeros((3, 3)))


def test_the_recordings_violation_names_its_measure_and_the_chapters_is_offered():
    chain = kktdae.PendulumChain(2)
    run = kktdae.simulate(chain, chain.initial_state(0.0137), kktdae.SimulationOptions(steps=4000))
    rec = run.recording
    assert "‖φ(q, t)‖∞" in rec.violation_measure and "m²" in rec.violation_measure
    assert "link_length_violation" in rec.violation_measure
    # Both measures from the positions, in numpy: φ_k = ½(|d_k|² − L_k²) [m²] and | |d_k| − L_k | [m].
    p = rec.q.reshape(len(rec), 2, 3)
    d = np.linalg.norm(np.diff(np.concatenate([np.zeros((len(rec), 1, 3)), p], axis=1), axis=1), axis=2)
    np.testing.assert_allclose(rec.violation, np.max(np.abs(0.5 * (d ** 2 - 1.0)), axis=1), rtol=1e-12, atol=1e-15)
    length_error = chain.link_length_violation(rec.q)
    assert length_error.shape == (len(rec),)
    np.testing.assert_allclose(length_error, np.max(np.abs(d - 1.0), axis=1), rtol=1e-12, atol=1e-15)
    # Stretched links: ½(|d|² − 1) = e(1 + e/2) for a length error e, so the m² figure is the larger.
    assert rec.violation.max() > 1.1 * length_error.max() > 0.1

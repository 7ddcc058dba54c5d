"""kktdae.compute_sensitivities: numpy shapes and names, forward against central differences on the
slider-crank, a chain and a builder mechanism, a Python integrand against the C++ kinetic energy,
initial-state columns, and errors that name what is wrong. Short runs (about 0.5 s in all)."""
import numpy as np
import pytest

import kktdae


def short_run(end_time=1.0, dt=0.5, rtol=1e-9, integrator="ida_ggl"):
    options = kktdae.SimulationOptions(integrator=integrator, dt=dt, end_time=end_time)
    options.adaptive.rtol = rtol
    options.adaptive.atol = rtol
    return options


def forward_and_differences(model, initial, options, **fields):
    forward = kktdae.compute_sensitivities(model, initial, options, kktdae.SensitivityOptions(**fields))
    fd = kktdae.compute_sensitivities(model, initial, options, kktdae.SensitivityOptions(method="fd", **fields))
    assert forward.summary.ok, forward.summary.brief_report()
    assert fd.summary.ok, fd.summary.brief_report()
    return forward, fd


def test_slider_crank_arrays_have_the_documented_shapes_and_names():
    model = kktdae.SpringSliderCrank()
    r = kktdae.compute_sensitivities(model, model.initial_state(), short_run(2.0, 0.5),
                                     kktdae.SensitivityOptions(integrand="kinetic_energy", record_trajectory=True))
    assert r.summary.ok and r.summary.runs == 1
    assert r.parameter_names == ["k", "c"] and r.column_names == ["k", "c"]
    assert r.times.shape == (5,) and r.times[-1] == 2.0
    assert r.states.shape == (5, 8)
    assert r.sensitivities.shape == (5, 8, 2)
    # The start does not depend on p: s_q = s_v = 0 there.
    assert np.all(r.sensitivities[0, :6, :] == 0.0)
    assert r.cost > 0.0
    assert r.cost_derivative("k") == r.cost_gradient[0]
    assert r.cost_derivatives == {"k": r.cost_gradient[0], "c": r.cost_gradient[1]}
    with pytest.raises(ValueError, match=r"no column 'm'.*k, c"):
        r.cost_derivative("m")


def test_forward_agrees_with_central_differences_on_the_slider_crank():
    model = kktdae.SpringSliderCrank()
    forward, fd = forward_and_differences(model, model.initial_state(), short_run(2.0, 2.0), integrand="kinetic_energy")
    assert fd.summary.runs == 5
    # rtol 1e-9: central differences are good to about rtol^(2/3) = 1e-6; the bound is 100 times that.
    assert np.max(np.abs(forward.sensitivities[-1, :6] - fd.sensitivities[-1, :6])) < 1e-4
    assert np.max(np.abs(forward.cost_gradient - fd.cost_gradient)) < 1e-4


def test_a_python_integrand_equals_the_kinetic_energy_one():
    model = kktdae.SpringSliderCrank()
    mass = np.array([1.0, 1.0, 2.0])

    def value(t, q, v, lam, p):
        return 0.5 * float(v @ (mass * v))

    def gradient(t, q, v, lam, p):
        return np.zeros(3), mass * v, np.zeros(2), np.zeros(2)

    options = short_run(1.0, 1.0)
    builtin = kktdae.compute_sensitivities(model, model.initial_state(), options,
                                           kktdae.SensitivityOptions(integrand="kinetic_energy"))
    python = kktdae.compute_sensitivities(model, model.initial_state(), options,
                                          kktdae.SensitivityOptions(integrand=kktdae.Integrand(value, gradient)))
    assert python.summary.ok and python.summary.quadrature_evaluations > 0
    assert abs(python.cost - builtin.cost) < 1e-12
    assert np.max(np.abs(python.cost_gradient - builtin.cost_gradient)) < 1e-12


def test_an_integrand_that_raises_ends_the_run_with_the_exception_kept():
    model = kktdae.SpringSliderCrank()

    def value(t, q, v, lam, p):
        raise RuntimeError("no cost today")

    r = kktdae.compute_sensitivities(model, model.initial_state(), short_run(),
                                     kktdae.SensitivityOptions(integrand=kktdae.Integrand(value, value)))
    assert not r.summary.ok and "no cost today" in r.summary.message
    assert isinstance(r.exception, RuntimeError)


def test_initial_state_directions_add_named_columns():
    model = kktdae.SpringSliderCrank()
    crank = kktdae.InitialStateDirection(name="crank_angle0", dq=[1.0, 0.0, 0.0], dv=[0.0, 0.0, 0.0])
    r = kktdae.compute_sensitivities(model, model.initial_state(), short_run(1.0, 1.0),
                                     kktdae.SensitivityOptions(initial_state=[crank], record_trajectory=True))
    assert r.column_names == ["k", "c", "crank_angle0"]
    assert r.sensitivities.shape == (2, 8, 3)
    # θ = π/2: the slider follows the crank, the rod cannot move (docs/sensitivities.md).
    assert np.allclose(r.initial_directions[:, 0], [0.8, -0.4, 0.0, 0.0, 0.0, 0.0], atol=1e-15)


def test_a_start_that_depends_on_a_parameter_adds_that_initial_direction_to_its_column():
    # The sensitivity equations are linear in s: a start moving with k along d gives the k column
    # plus the column of the initial direction d (both projected alike), to the runs' tolerance.
    model = kktdae.SpringSliderCrank()
    d = np.array([1.0, 0.0, 0.0, 0.0, 0.3, 0.0])
    jacobian = np.zeros((6, 2))
    jacobian[:, 0] = d
    options = short_run(1.0, 1.0)
    moved = kktdae.compute_sensitivities(model, model.initial_state(), options,
                                         kktdae.SensitivityOptions(initial_state_parameter_jacobian=jacobian))
    direction = kktdae.InitialStateDirection(name="d", dq=d[:3], dv=d[3:])
    split = kktdae.compute_sensitivities(model, model.initial_state(), options,
                                         kktdae.SensitivityOptions(initial_state=[direction]))
    assert moved.summary.ok and split.summary.ok
    s_moved, s_split = moved.sensitivities[-1], split.sensitivities[-1]
    assert np.abs(s_split[:, 2]).max() > 0.1
    assert np.allclose(s_moved[:, 0], s_split[:, 0] + s_split[:, 2], rtol=0.0, atol=1e-6)
    assert np.allclose(s_moved[:, 1], s_split[:, 1], rtol=0.0, atol=1e-6)
    assert kktdae.SensitivityOptions().initial_state_parameter_jacobian is None
    with pytest.raises(ValueError, match=r"2nq x np = 6 x 2.*got 6 x 1"):
        kktdae.compute_sensitivities(model, model.initial_state(), options,
                                     kktdae.SensitivityOptions(initial_state_parameter_jacobian=jacobian[:, :1]))
    with pytest.raises(ValueError, match=r"initial_state_parameter_jacobian must be a 2-D array"):
        kktdae.SensitivityOptions(initial_state_parameter_jacobian=d)


def test_chain_parameters_by_name_and_their_derivative_check():
    chain = kktdae.SpringChain(kktdae.SpringChainParams(
        chain=kktdae.PendulumChainParams(masses=[1.0, 1.5], lengths=[0.6, 0.5]), joint_stiffness=8.0,
        joint_damping=0.3))
    assert isinstance(chain, kktdae.ParametricSystem)
    assert chain.parameter_names() == ["masses[0]", "masses[1]", "gravity", "joint_stiffness", "joint_damping",
                                       "lengths[0]", "lengths[1]"]
    lighter = chain.with_parameters(gravity=3.7, joint_damping=0.0, **{"lengths[1]": 0.7})
    assert list(lighter.parameter_values()) == [1.0, 1.5, 3.7, 8.0, 0.0, 0.6, 0.7]
    with pytest.raises(ValueError, match=r"no parameter 'length'.*joint_stiffness"):
        chain.with_parameters(length=2.0)
    with pytest.raises(ValueError, match=r"masses\[1\]"):
        chain.with_parameter_values([1.0, -1.5, 9.81, 8.0, 0.3, 0.6, 0.5])
    rng = np.random.default_rng(45)
    start = chain.initial_state(0.4)
    q = start.q + 0.1 * rng.standard_normal(chain.nq())
    v, a, dq, dv = (rng.standard_normal(chain.nq()) for _ in range(4))
    check = chain.check_parameter_derivatives(q, v, a, 0.0, dq, dv, 1e-4)
    assert check.dynamics_parameter_error < 1e-9 and check.tangent_error < 1e-6
    # The lengths enter φ alone (∂φ_k/∂L_k = −L_k): J, γ and ∂φ/∂t do not move with p.
    assert 0.0 < check.constraint_parameter_error < 1e-9 and check.constraint_tangent_error == 0.0
    assert "d(J, gamma, phi_t)/dp 0" in repr(check)
    assert chain.dynamics_parameter_jacobian(q, v, a).shape == (6, 7)
    forward, fd = forward_and_differences(chain, start, short_run(), integrand="kinetic_energy")
    assert np.max(np.abs(forward.sensitivities[-1, :12] - fd.sensitivities[-1, :12])) < 1e-4
    assert np.max(np.abs(forward.cost_gradient - fd.cost_gradient)) < 1e-4
    # Some of them, by name: the same columns as the full run's, to its tolerance.
    chosen = kktdae.compute_sensitivities(chain, start, short_run(), kktdae.SensitivityOptions(
        parameters=["lengths[1]", "gravity"], integrand="kinetic_energy"))
    assert chosen.summary.ok and chosen.column_names == ["lengths[1]", "gravity"]
    assert list(chosen.parameters) == [0.5, 9.81]
    assert np.max(np.abs(chosen.sensitivities[-1][:, [0, 1]] - forward.sensitivities[-1][:, [6, 2]])) < 1e-6
    assert np.max(np.abs(chosen.cost_gradient - forward.cost_gradient[[6, 2]])) < 1e-6
    with pytest.raises(ValueError, match=r"no parameter 'length'|'length'.*lengths\[0\]"):
        kktdae.compute_sensitivities(chain, start, short_run(), kktdae.SensitivityOptions(parameters=["length"]))


def test_builder_parameters():
    b = kktdae.MechanismBuilder("pendulum")
    b.set_gravity([0.0, -9.81, 0.0])
    link = b.add_planar_body("link", 1.2, 0.08, 0.25, 0.0, 0.0)
    b.add_joint("pin", "revolute", kktdae.GROUND, kktdae.Frame.planar(0.0, 0.0), link, kktdae.Frame.planar(-0.25, 0.0))
    b.add_spring("strut", kktdae.GROUND, [0.5, 0.4, 0.0], link, [0.1, 0.0, 0.0], 15.0, 0.4, 0.5)
    mechanism = b.build()
    names = [p.name for p in kktdae.declared_parameters(mechanism)]
    assert names == ["link.mass", "link.inertia", "gravity.x", "gravity.y", "strut.stiffness", "strut.damping",
                     "strut.rest_length"]
    model = kktdae.ParametricMechanism(mechanism, ["link.mass", "strut.stiffness"])
    assert model.parameter_names() == ["link.mass", "strut.stiffness"]
    assert [p.kind for p in model.parameters] == ["body_mass", "spring_stiffness"]
    with pytest.raises(ValueError, match=r"no parameter 'strut\.k'.*strut\.stiffness"):
        kktdae.ParametricMechanism(mechanism, ["strut.k"])
    start = kktdae.State(mechanism.built_configuration())
    forward, fd = forward_and_differences(model, start, short_run(), integrand="kinetic_energy")
    assert np.max(np.abs(forward.sensitivities[-1, :6] - fd.sensitivities[-1, :6])) < 1e-4
    assert np.max(np.abs(forward.cost_gradient - fd.cost_gradient)) < 1e-4


def test_errors_name_what_is_wrong():
    model = kktdae.SpringSliderCrank()
    with pytest.raises(TypeError, match=r"system must be a ParametricSystem.*got CircleMass"):
        kktdae.compute_sensitivities(kktdae.CircleMass(), kktdae.State([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"cvode_bdf or cvode_adams; integrator rk4 is not supported"):
        kktdae.compute_sensitivities(model, model.initial_state(), short_run(integrator="rk4"))
    with pytest.raises(ValueError, match=r"unknown integrand 'energy'"):
        kktdae.SensitivityOptions(integrand="energy")
    with pytest.raises(TypeError, match=r"SensitivityOptions\.integrand takes"):
        kktdae.SensitivityOptions(integrand=3)
    with pytest.raises(ValueError, match=r"difference_step"):
        kktdae.SensitivityOptions(difference_step=0.5).validate()
    with pytest.raises(ValueError, match=r"unknown value 'adjoint'"):
        kktdae.SensitivityOptions(method="adjoint")


def test_cvode_bdf_and_the_physical_lambda_rows():
    # CVODES on the stabilized ODE (gains α = β = 10, as the app's default), and the λ rows: the
    # physical λ by default, the method's own on request; forward against central differences.
    model = kktdae.SpringSliderCrank()
    options = short_run(2.0, 1.0, integrator="cvode_bdf")
    options.stabilization = kktdae.Stabilization.baumgarte(10.0, 10.0)
    forward, fd = forward_and_differences(model, model.initial_state(), options, integrand="kinetic_energy")
    assert forward.summary.integrator == kktdae.Integrator.CVODE_BDF
    assert forward.observed_multiplier == kktdae.ObservedMultiplier.PHYSICAL
    assert forward.summary.max_constraint_residual < 1e-8
    lam_rows = slice(2 * forward.nq, 2 * forward.nq + forward.nc)
    assert np.max(np.abs(forward.sensitivities[-1, lam_rows] - fd.sensitivities[-1, lam_rows])) < 1e-4
    assert np.max(np.abs(forward.cost_gradient - fd.cost_gradient)) < 1e-4
    options.observed_multiplier = "method"
    own = kktdae.compute_sensitivities(model, model.initial_state(), options)
    assert own.observed_multiplier == kktdae.ObservedMultiplier.METHOD
    # On CVODES the method's λ carries the feedback 2αφ̇ + β²φ: close to the physical one, not equal.
    assert np.max(np.abs(own.states[-1, lam_rows] - forward.states[-1, lam_rows])) < 1e-6

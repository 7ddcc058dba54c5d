"""Mechanisms from bodies and joints in Python: the builder gives the same model as C++ (the heavy
top against its reference, a slider–crank's reactions against statics), assembly, and errors."""
import math

import numpy as np
import pytest

import kktdae


def heavy_top():
    b = kktdae.MechanismBuilder("top")
    b.add_pivoted_body("top", mass=15.0, centre_of_mass=[0.0, 1.0, 0.0],
                       inertia=np.diag([0.234375, 0.46875, 0.234375]), pivot=[0, 0, 0], pivot_in_space=[0, 0, 0])
    b.set_gravity([0.0, 0.0, -9.81])
    return b.build()


def test_heavy_top_from_python_is_the_test_set_problem():
    top = heavy_top()
    case = kktdae.test_set_case("heavy_top")
    start = case["start"]
    assert (top.nq(), top.nc()) == (9, 6)
    np.testing.assert_array_equal(top.built_configuration(), start.q)
    np.testing.assert_array_equal(top.bias(start.q, start.v, 0.0), case["system"].bias(start.q, start.v, 0.0))
    assert top.is_conservative()
    report = kktdae.check_derivatives(top, start.q, start.v, 0.0)
    assert report.worst_relative_error() < 1e-6, report.describe()


def test_a_hanging_pendulum_reaction_is_its_weight_and_assembly_names_a_loop_that_cannot_close():
    b = kktdae.MechanismBuilder("pendulum")
    bar = b.add_planar_body("bar", mass=2.0, inertia=0.1, x=0.0, y=-0.5, angle=-math.pi / 2)
    pivot = b.add_joint("pivot", "revolute", kktdae.GROUND, kktdae.Frame.planar(0, 0), bar, kktdae.Frame.planar(-0.5, 0))
    b.set_gravity([0.0, -9.81, 0.0])
    m = b.build()
    start = kktdae.State(m.built_configuration())
    result = kktdae.solve_kkt(m, start.q, start.v, 0.0)
    assert result.ok, result.message
    force, moment = m.reaction(pivot, start.q, result.lam)
    # Hanging at rest: the pivot holds the weight, 2 · 9.81 N upwards, i.e. along −x of the bar's
    # frame (its x axis points down along the bar); no moment.
    np.testing.assert_allclose(force, [-2.0 * 9.81, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(moment, [0.0, 0.0, 0.0], atol=1e-12)
    # The angle from the ground frame to the bar frame: the bar hangs at −π/2.
    np.testing.assert_allclose(m.joint_coordinates(pivot, start.q), [-math.pi / 2], rtol=1e-15)

    b2 = kktdae.MechanismBuilder("open")
    bar2 = b2.add_planar_body("bar", mass=1.0, inertia=0.1, x=0.5)
    b2.add_joint("pivot", "revolute", kktdae.GROUND, kktdae.Frame.planar(0, 0), bar2, kktdae.Frame.planar(-0.5, 0))
    b2.add_joint("far_pin", kktdae.JointKind.REVOLUTE, kktdae.GROUND, kktdae.Frame.planar(3, 0), bar2,
                 kktdae.Frame.planar(0.5, 0))
    m2 = b2.build()
    state, report = kktdae.assemble(m2, kktdae.State(m2.built_configuration()))
    assert not report.converged and report.failing_joint == "far_pin"


def test_bad_descriptions_raise_value_errors_naming_the_field():
    b = kktdae.MechanismBuilder("bad")
    with pytest.raises(ValueError, match="mass"):
        b.add_planar_body("a", mass=-1.0, inertia=1.0)
    a = b.add_planar_body("a", mass=1.0, inertia=1.0)
    with pytest.raises(ValueError, match="joint kind.*revolute"):
        b.add_joint("j", "hinge", a, kktdae.Frame.planar(0, 0), kktdae.GROUND, kktdae.Frame.planar(0, 0))

#!/usr/bin/env python3
"""A model written in Python: the spherical pendulum, a point mass on a rigid massless rod.

    q = (x, y, z),  M = m I,  h = (0, m g, 0),  φ = ½(|q|² − L²),  J = qᵀ,  γ = |q̇|²

kktdae's solvers and integrators run it through the ConstrainedSystem trampoline: each method below is
called from C++ with numpy arrays and returns one. The script checks the hand-written J and γ against
finite differences, runs RK4 with Baumgarte stabilization and prints how well the run keeps the
energy, the rod length and the vertical angular momentum L_y (gravity has no torque about y).

    python3 apps/python/spherical_pendulum.py [--steps 2000] [--dt 0.005]
"""
import argparse

import numpy as np

import kktdae


class SphericalPendulum(kktdae.ConstrainedSystem):
    """A mass m on a rod of length L from a pivot at the origin, gravity g along −y."""

    def __init__(self, mass=1.0, length=1.0, gravity=9.81):
        super().__init__()
        self.mass, self.length, self.gravity = mass, length, gravity
        self._mass_diagonal = np.full(3, mass)
        self._h = np.array([0.0, mass * gravity, 0.0])

    def name(self):
        return "spherical_pendulum"

    def nq(self):
        return 3

    def nc(self):
        return 1

    def mass_structure(self):
        return kktdae.MassStructure.CONSTANT_DIAGONAL

    def mass_diagonal(self, q):
        return self._mass_diagonal

    def bias(self, q, v, t):
        return self._h

    def constraint(self, q, t):
        return np.array([0.5 * (q @ q - self.length**2)])

    def constraint_jacobian(self, q, t):
        return q.reshape(1, 3)

    def constraint_bias(self, q, v, t):
        return np.array([v @ v])

    def kinetic_energy(self, q, v):
        return 0.5 * self.mass * float(v @ v)

    def potential_energy(self, q, t):
        return self.mass * self.gravity * float(q[1])

    def bias_depends_on_state(self):
        return False


def initial_state(model, polar_degrees=60.0, swirl=2.0):
    """The rod `polar_degrees` from hanging straight down, the mass moving sideways at `swirl` m/s."""
    theta = np.radians(polar_degrees)
    q = model.length * np.array([np.sin(theta), -np.cos(theta), 0.0])
    v = np.array([0.0, 0.0, swirl])  # perpendicular to the rod: J q̇ = 0
    return kktdae.State(q, v)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--dt", type=float, default=0.005)
    args = parser.parse_args()

    model = SphericalPendulum()
    state = initial_state(model)
    check = kktdae.check_derivatives(model, state.q, state.v)
    print(f"derivative check: {check.describe()}")

    options = kktdae.SimulationOptions(integrator="rk4", dt=args.dt, steps=args.steps,
                                       stabilization=kktdae.Stabilization.critical(10.0))
    result = kktdae.simulate(model, state, options)
    print(result.summary.brief_report())
    rec = result.recording
    angular_y = rec.q[:, 2] * rec.v[:, 0] - rec.q[:, 0] * rec.v[:, 2]  # (q × q̇)_y per unit mass
    print(f"energy drift    max |E - E0| = {np.max(np.abs(rec.energy - rec.energy[0])):.3e} J")
    print(f"rod length      max |phi|    = {np.max(rec.violation):.3e} m^2")
    print(f"momentum L_y    max |dL_y|   = {np.max(np.abs(angular_y - angular_y[0])):.3e} m^2/s")
    return 0 if result.summary.ok and check.worst_relative_error() < 1e-6 else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Python-written models the tests compare against the shipped C++ ones."""
import numpy as np

import kktdae


class PyPendulumChain(kktdae.ConstrainedSystem):
    """PendulumChain rewritten in Python: N point masses in 3D, φ_k = ½(|d_k|² − L_k²),
    d_k = p_k − p_{k−1} (p_{−1} the pivot at the origin), gravity g along −y."""

    def __init__(self, links, mass=1.0, length=1.0, gravity=9.81, general_mass=False):
        super().__init__()
        self.links, self.length, self.gravity = links, length, gravity
        self.masses = np.full(links, mass)
        self._diag = np.repeat(self.masses, 3)
        self._h = np.zeros(3 * links)
        self._h[1::3] = self.masses * gravity
        self.general_mass = general_mass  # exercise mass_matrix (GENERAL) instead of the diagonal

    def nq(self):
        return 3 * self.links

    def nc(self):
        return self.links

    def mass_structure(self):
        return kktdae.MassStructure.GENERAL if self.general_mass else kktdae.MassStructure.CONSTANT_DIAGONAL

    def mass_diagonal(self, q):
        return self._diag

    def mass_matrix(self, q):
        return np.diag(self._diag)

    def bias(self, q, v, t):
        return self._h

    def _separations(self, x):
        p = x.reshape(self.links, 3)
        d = p.copy()
        d[1:] -= p[:-1]
        return d

    def constraint(self, q, t):
        d = self._separations(q)
        return 0.5 * (np.einsum("ij,ij->i", d, d) - self.length**2)

    def constraint_jacobian(self, q, t):
        d = self._separations(q)
        J = np.zeros((self.links, 3 * self.links))
        for k in range(self.links):
            J[k, 3 * k:3 * k + 3] = d[k]
            if k > 0:
                J[k, 3 * k - 3:3 * k] = -d[k]
        return J

    def constraint_bias(self, q, v, t):
        dv = self._separations(v)
        return np.einsum("ij,ij->i", dv, dv)

    def kinetic_energy(self, q, v):
        return 0.5 * float(self._diag @ (v * v))

    def potential_energy(self, q, t):
        return float(self.masses @ q[1::3]) * self.gravity

    def bias_depends_on_state(self):
        return False


class PyDoublePendulum(kktdae.ConstrainedSystem):
    """The double pendulum (1 kg, 1 m links) written for speed: scalar Python arithmetic on
    q.tolist() instead of numpy calls on 3-vectors, whose per-call overhead dominates at this size.
    The benchmark's Python model (apps/python/bench_python.py)."""

    GRAVITY = 9.81

    def __init__(self):
        super().__init__()
        self._ones = np.ones(6)
        self._h = np.array([0.0, self.GRAVITY, 0.0, 0.0, self.GRAVITY, 0.0])

    def nq(self):
        return 6

    def nc(self):
        return 2

    def mass_structure(self):
        return kktdae.MassStructure.CONSTANT_DIAGONAL

    def mass_diagonal(self, q):
        return self._ones

    def bias(self, q, v, t):
        return self._h

    def bias_depends_on_state(self):
        return False

    def constraint(self, q, t):
        x0, y0, z0, x1, y1, z1 = q.tolist()
        dx, dy, dz = x1 - x0, y1 - y0, z1 - z0
        return np.array([0.5 * (x0 * x0 + y0 * y0 + z0 * z0 - 1.0), 0.5 * (dx * dx + dy * dy + dz * dz - 1.0)])

    def constraint_jacobian(self, q, t):
        x0, y0, z0, x1, y1, z1 = q.tolist()
        dx, dy, dz = x1 - x0, y1 - y0, z1 - z0
        return np.array([[x0, y0, z0, 0.0, 0.0, 0.0], [-dx, -dy, -dz, dx, dy, dz]])

    def constraint_bias(self, q, v, t):
        a, b, c, d, e, f = v.tolist()
        return np.array([a * a + b * b + c * c, (d - a) ** 2 + (e - b) ** 2 + (f - c) ** 2])

    def kinetic_energy(self, q, v):
        a, b, c, d, e, f = v.tolist()
        return 0.5 * (a * a + b * b + c * c + d * d + e * e + f * f)

    def potential_energy(self, q, t):
        return self.GRAVITY * (float(q[1]) + float(q[4]))

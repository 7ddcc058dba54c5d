"""ModelWrapper: a Python model made of another model, to change some of its methods. A shipped model's
own methods cannot be overridden in a subclass (runs call its C++ methods; _overrides.py refuses
it), so the change goes into a wrapper, which runs calls as they call any Python model."""
from . import _kktdae


class ModelWrapper(_kktdae.ConstrainedSystem):
    """A Python model that forwards every method to ``model`` (any ConstrainedSystem: a shipped model or a
    Python one). Subclass it and define only the methods you change; ``self.model`` is the wrapped
    model::

        class DoubleGravity(kktdae.ModelWrapper):
            def bias(self, q, v, t):
                return 2.0 * self.model.bias(q, v, t)
            def potential_energy(self, q, t):
                return 2.0 * self.model.potential_energy(q, t)

        heavy = DoubleGravity(kktdae.PendulumChain(2))

    It is a Python model: every method is a Python call (about a microsecond each), the KKT solve is
    dense (no sparse Jacobian), and its flags are the wrapped model's (is_conservative() included:
    change bias without potential_energy and the divergence rule will see the energy run away).
    """

    def __init__(self, model):
        super().__init__()
        self.model = model

    def name(self):
        return f"{type(self).__name__}({self.model.name()})"

    def nq(self):
        return self.model.nq()

    def nc(self):
        return self.model.nc()

    def nu(self):
        return self.model.nu()

    def mass_structure(self):
        return self.model.mass_structure()

    def mass_matrix(self, q):
        return self.model.mass_matrix(q)

    def mass_diagonal(self, q):
        return self.model.mass_diagonal(q)

    def bias(self, q, v, t=0.0):
        return self.model.bias(q, v, t)

    def input_map(self, q, t=0.0):
        return self.model.input_map(q, t)

    def constraint(self, q, t=0.0):
        return self.model.constraint(q, t)

    def constraint_jacobian(self, q, t=0.0):
        return self.model.constraint_jacobian(q, t)

    def constraint_time_derivative(self, q, t=0.0):
        return self.model.constraint_time_derivative(q, t)

    def constraint_bias(self, q, v, t=0.0):
        return self.model.constraint_bias(q, v, t)

    def kinetic_energy(self, q, v):
        return self.model.kinetic_energy(q, v)

    def potential_energy(self, q, t=0.0):
        return self.model.potential_energy(q, t)

    def is_time_dependent(self):
        return self.model.is_time_dependent()

    def bias_depends_on_state(self):
        return self.model.bias_depends_on_state()

    def is_conservative(self):
        return self.model.is_conservative()

    def energy_scale(self):
        return self.model.energy_scale()

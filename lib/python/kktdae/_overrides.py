"""Python subclasses of the models: a method the library would never call is refused when the class is
made (a TypeError from ConstrainedSystem.__init_subclass__), so that an override is honoured or
refused, never silently ignored.

- A subclass of a shipped model (PendulumChain, CircleMass, ...) is a C++ model: simulate,
  solve_kkt, check_derivatives and check_model call its C++ methods, whatever the subclass defines.
  Its model methods (every public method of ConstrainedSystem) cannot be overridden; helpers can be
  added. ModelWrapper is the way to change one method of a shipped model.
- A subclass of ConstrainedSystem is a Python model: the trampoline (system_trampoline.hpp) calls
  its methods, except total_energy (C++ adds kinetic_energy and potential_energy itself) and
  jacobian_non_zeros (a Python model has no sparse Jacobian).
"""
from . import _kktdae

_System = _kktdae.ConstrainedSystem
# The model methods of ConstrainedSystem's Python face: name, nq, ..., bias, ..., total_energy.
MODEL_METHODS = frozenset(name for name in vars(_System) if not name.startswith("_"))
# The ones the trampoline does not call on a Python model, and why.
NOT_CALLED = {
    "total_energy": "runs take T + V as kinetic_energy(q, v) + potential_energy(q, t): override those instead",
    "jacobian_non_zeros": "a Python model has no sparse Jacobian (it is always solved densely): remove it",
}


def _shipped_models():
    return frozenset(value for value in vars(_kktdae).values()
                     if isinstance(value, type) and issubclass(value, _System) and value is not _System)


_SHIPPED = _shipped_models()


def _defined_in_python(cls, name, first_cpp_class):
    """The Python class (cls or a mixin before the first C++ class of the MRO) that defines `name`."""
    for klass in cls.__mro__:
        if klass is first_cpp_class:
            return None
        if name in vars(klass) and vars(klass)[name] is not getattr(first_cpp_class, name, None):
            return klass
    return None


def _refuse_ignored_overrides(cls, **kwargs):
    super(_System, cls).__init_subclass__(**kwargs)
    shipped = next((klass for klass in cls.__mro__ if klass in _SHIPPED), None)
    first_cpp_class = shipped if shipped is not None else _System
    refused = MODEL_METHODS if shipped is not None else NOT_CALLED
    for name in sorted(refused):
        owner = _defined_in_python(cls, name, first_cpp_class)
        if owner is None:
            continue
        where = f"{cls.__name__}.{name}" + ("" if owner is cls else f" (from {owner.__qualname__})")
        if shipped is None:
            raise TypeError(f"{where}: no run calls it; {NOT_CALLED[name]}")
        raise TypeError(
            f"{where} overrides {shipped.__name__}.{name}, which no run would call: a shipped model runs its "
            f"own C++ methods (simulate, solve_kkt, check_derivatives and check_model ignore Python overrides). "
            f"Derive from kktdae.ModelWrapper instead, define {name} there, and make the model as "
            f"{cls.__name__}(kktdae.{shipped.__name__}(...)): the wrapper forwards every method you do not "
            f"define to the model it wraps")


def install():
    """Makes every subclass of ConstrainedSystem (shipped models' included) pass the check."""
    _System.__init_subclass__ = classmethod(_refuse_ignored_overrides)

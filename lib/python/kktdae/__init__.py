"""kktdae: constrained Lagrangian dynamics around the KKT system.

    M(q) q̈ + h(q, q̇, t) = Sᵀu + Jᵀλ,      J q̈ + γ + 2α φ̇ + β² φ = 0

The C++ library's models, solvers and integrators with numpy arrays in and out. Models derive from
ConstrainedSystem (a Python class can too); simulate() runs one and returns the Summary with a
Recording filled inside C++. docs/python.md is the guide.
"""
from ._kktdae import *  # noqa: F401,F403  (the extension module defines __all__-worthy names only)
from . import _kktdae, _overrides
from ._model_wrapper import ModelWrapper

__version__ = "0.1.0"

_overrides.install()


class SimulationError(RuntimeError):
    """A run that did not succeed, raised by SimulationResult.raise_on_failure().

    ``summary`` is the run's Summary (status, message, counters); the recording up to the failure
    stays on the result.
    """

    def __init__(self, summary):
        super().__init__(f"{summary.status.label}: {summary.message}")
        self.summary = summary


def _raise_on_failure(self):
    """Raise SimulationError unless the run succeeded; returns the result otherwise."""
    if not self.summary.ok:
        raise SimulationError(self.summary)
    return self


_kktdae.SimulationResult.raise_on_failure = _raise_on_failure

__all__ = [name for name in dir(_kktdae) if not name.startswith("_")] + ["SimulationError", "ModelWrapper"]

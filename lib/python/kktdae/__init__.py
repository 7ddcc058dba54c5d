"""kktdae: constrained Lagrangian dynamics around the KKT system.

    M(q) q̈ + h(q, q̇, t) = Sᵀu + Jᵀλ,      J q̈ + γ + 2α φ̇ + β² φ = 0

The C++ library's models, solvers and integrators with numpy arrays in and out. Models derive from
ConstrainedSystem (a Python class can too); simulate() runs one and returns the Summary with a
Recording filled inside C++. docs/python.md is the guide.
"""
from ._kktdae import *  # noqa: F401,F403  (the extension module defines __all__-worthy names only)
from . import _kktdae, _model_pickling, _overrides, _recording, _sizes
from ._model_wrapper import ModelWrapper
from ._recording import RecordedState
from ._sizes import Size

__version__ = "0.1.0"

_overrides.install()
_model_pickling.install()
_recording.install()
_sizes.install(_overrides._SHIPPED)


class SimulationError(RuntimeError):
    """A run that did not succeed, raised by SimulationResult.raise_on_failure().

    ``summary`` is the run's Summary (status, message, counters); the recording up to the failure
    stays on the result. A run ended by a Python exception (from the model, observer, controller or
    an event) raises a SimulationError that is also of that exception's type, with it as
    ``__cause__`` and its traceback: ``except ValueError`` catches it and ``pdb.pm()`` opens the frame
    that raised.
    """

    def __init__(self, summary):
        super().__init__(f"{summary.status.label}: {summary.message}")
        self.summary = summary

    def __str__(self):  # not the cause type's own (KeyError's would quote the message)
        return str(self.args[0]) if self.args else ""


_failure_types = {}


def _failure_type(cause):
    """SimulationError, or the subclass of it and of type(cause) when Python can make one (not for
    types whose instance layout conflicts, e.g. OSError's, or that cannot be subclassed)."""
    kind = type(cause)
    if kind not in _failure_types:
        try:
            made = type("SimulationError", (SimulationError, kind),
                        {"__module__": __name__, "__qualname__": f"SimulationError[{kind.__qualname__}]"})
        except TypeError:
            made = SimulationError
        _failure_types[kind] = made
    return _failure_types[kind]


def _raise_on_failure(self):
    """Raise SimulationError unless the run succeeded; returns the result otherwise."""
    if self.summary.ok:
        return self
    cause = self.exception
    if cause is None:
        raise SimulationError(self.summary)
    try:
        error = _failure_type(cause)(self.summary)
    except Exception:  # the cause type's own __new__ refused the arguments
        error = SimulationError(self.summary)
    raise error.with_traceback(cause.__traceback__) from cause


_kktdae.SimulationResult.raise_on_failure = _raise_on_failure

__all__ = [name for name in dir(_kktdae) if not name.startswith("_")] + ["SimulationError", "ModelWrapper", "RecordedState", "Size"]

"""Indexing and iterating a Recording as a sequence of states: ``recording[i]`` is the i-th recorded
state (negative i from the end), ``recording[a:b:k]`` a Recording of those rows (copies of them),
``for state in recording`` goes through them in time order. The arrays stay the fast way in: a
loop over states costs a Python object per state."""
from typing import NamedTuple
import operator

import numpy as np

from . import _kktdae


class RecordedState(NamedTuple):
    """One recorded state: t [s], q (nq,), v (nq,), lam (nc,), violation (‖φ‖∞), energy (T + V [J])."""
    t: float
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    violation: float
    energy: float


def _getitem(self, index):
    if isinstance(index, slice):
        return _kktdae.Recording(t=self.t[index], q=self.q[index], v=self.v[index], lam=self.lam[index],
                                 violation=self.violation[index], energy=self.energy[index],
                                 violation_measure=self.violation_measure)
    try:
        i = operator.index(index)
    except TypeError:
        raise TypeError(f"Recording indices must be integers or slices, got {type(index).__name__}") from None
    n = len(self)
    if not -n <= i < n:
        raise IndexError(f"Recording index {i} out of range for a recording of {n} states")
    i %= n
    return RecordedState(float(self.t[i]), self.q[i].copy(), self.v[i].copy(), self.lam[i].copy(),
                         float(self.violation[i]), float(self.energy[i]))


def _iter(self):
    for i in range(len(self)):
        yield _getitem(self, i)


def install():
    _kktdae.Recording.__getitem__ = _getitem
    _kktdae.Recording.__iter__ = _iter

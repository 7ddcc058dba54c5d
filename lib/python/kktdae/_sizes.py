"""chain.nq, chain.nc, chain.nu as numbers on the shipped models, beside the methods chain.nq(): a
numpy user reads sizes as attributes (``a.shape``), the C++ API and every Python model have methods.
The property's value is a Size, an int that also answers a call, so both spellings work."""
from . import _kktdae


class Size(int):
    """An int that returns itself when called: ``chain.nq == 6`` and ``chain.nq() == 6``."""

    __slots__ = ()

    def __call__(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return int.__repr__(self)


def _size_property(name, doc):
    method = getattr(_kktdae.ConstrainedSystem, name)  # the C++ method, which the shipped class inherits
    return property(lambda self: Size(method(self)), doc=f"{doc} (also callable: .{name}() as on every model)")


SIZES = {"nq": "Number of generalized coordinates (size of q, q̇, q̈)",
         "nc": "Number of constraints (size of φ, λ)",
         "nu": "Number of inputs (size of u); 0 when unactuated"}


def install(shipped_models):
    for cls in shipped_models:
        for name, doc in SIZES.items():
            setattr(cls, name, _size_property(name, doc))

"""pickle, copy.copy and copy.deepcopy of models (multiprocessing sends models to its workers so).

- A shipped model is rebuilt from its constructor's arguments: its ``params`` (a parameters struct,
  which pickles field by field), or nothing for the Test Set's two fixed models. A Mechanism is
  refused: MechanismBuilder's drivers are C++ functions that cannot be sent; send what builds it.
- A Python subclass of a shipped model is that model plus the subclass's ``__dict__``.
- A Python model (a ConstrainedSystem subclass, ModelWrapper's included) pickles as Python pickles
  any object: its class by reference and its ``__dict__`` (or what its ``__getstate__`` returns,
  handed to its ``__setstate__``), without calling its ``__init__``. The C++ part is made fresh.
A subclass that defines ``__reduce__`` or ``__reduce_ex__`` itself decides instead.
"""
from . import _kktdae

_System = _kktdae.ConstrainedSystem
# Shipped models built without arguments: the IVP Test Set's, with the Test Set's parameters.
_WITHOUT_ARGUMENTS = frozenset({_kktdae.AndrewsSqueezer, _kktdae.CarAxis})


def _shipped_class(cls):
    """The first C++ model class in cls's MRO (None for a Python model)."""
    for klass in cls.__mro__:
        if klass is _System:
            return None
        if klass.__module__ == _kktdae.__name__:
            return klass
    return None


def _constructor_arguments(model, shipped):
    if shipped in _WITHOUT_ARGUMENTS:
        return ()
    if isinstance(getattr(shipped, "params", None), property):
        return (model.params,)
    raise TypeError(
        f"cannot pickle {type(model).__name__}: a {shipped.__name__} is not rebuilt from parameters "
        f"(MechanismBuilder's drivers are C++ functions); send what builds it (a function of your own that "
        f"calls MechanismBuilder) and build it in the worker")


def _rebuild_shipped(cls, shipped, arguments):
    model = cls.__new__(cls)
    shipped.__init__(model, *arguments)
    return model


def _rebuild_python_model(cls):
    model = cls.__new__(cls)
    _System.__init__(model)  # the C++ part (the trampoline); the state comes after, as for any object
    return model


def _reduce(self):
    cls = type(self)
    state = self.__getstate__()  # object's: the __dict__ (None when empty), or the class's own
    shipped = _shipped_class(cls)
    if shipped is None:
        return _rebuild_python_model, (cls,), state
    return _rebuild_shipped, (cls, shipped, _constructor_arguments(self, shipped)), state


def install():
    _System.__reduce__ = _reduce

"""The type stub (kktdae/_kktdae.pyi) gives every options class a typed keyword __init__ with
exactly the fields Python can assign, and names the Simulator's API: what an IDE and mypy read."""
import ast
from pathlib import Path

import pytest

import kktdae

STUB = Path(kktdae.__file__).with_name("_kktdae.pyi")


def stub_classes():
    tree = ast.parse(STUB.read_text())
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def keyword_classes():
    found = [getattr(kktdae, n) for n in sorted(dir(kktdae))
             if isinstance(getattr(kktdae, n), type)
             and "each keyword assigned to the field" in (getattr(kktdae, n).__init__.__doc__ or "")]
    assert len(found) >= 10
    return found


def method(node, name):
    return next(f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == name)


@pytest.mark.parametrize("cls", keyword_classes(), ids=lambda c: c.__name__)
def test_options_init_is_typed_keywords_matching_the_assignable_fields(cls):
    node = stub_classes()[cls.__name__]
    init = method(node, "__init__")
    assert init.args.kwarg is None, f"{cls.__name__}.__init__ still takes **{init.args.kwarg.arg}"
    assert [a.arg for a in init.args.args] == ["self"] and init.args.vararg is None
    names = [a.arg for a in init.args.kwonlyargs]
    assert set(names) == set(cls().__getstate__()), cls.__name__
    assert all(a.annotation is not None for a in init.args.kwonlyargs)
    # Every field keeps its annotation as an attribute, so `opts.dt = 0.01` type-checks.
    attributes = {t.target.id for t in node.body if isinstance(t, ast.AnnAssign)}
    assert set(names) <= attributes


def test_enum_fields_take_their_names_too():
    init = method(stub_classes()["SimulationOptions"], "__init__")
    annotation = {a.arg: ast.unparse(a.annotation) for a in init.args.kwonlyargs}
    assert annotation["integrator"] == "Union[Integrator, str]"
    assert annotation["steps"] == "Optional[int]"
    kktdae.SimulationOptions(integrator="rk4", steps=3)


def test_the_simulator_is_in_the_stub_with_its_public_names():
    node = stub_classes()["Simulator"]
    declared = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
    public = {n for n in dir(kktdae.Simulator) if not n.startswith("_")}
    assert public <= declared, public - declared


def test_a_wrong_type_names_the_field_the_type_it_takes_and_the_value():
    with pytest.raises(TypeError, match=r"^SimulationOptions\.steps takes Optional\[int\], got float 2\.5$"):
        kktdae.SimulationOptions(steps=2.5)
    with pytest.raises(TypeError, match=r"^KktOptions\.min_rcond takes float, got str 'small'$"):
        kktdae.KktOptions(min_rcond="small")

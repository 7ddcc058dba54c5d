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


@pytest.mark.parametrize("cls", keyword_classes(), ids=lambda c: c.__name__)
def test_every_field_is_assignable_from_what_its_keyword_takes(cls):
    """`opts.integrator = "rk4"` type-checks as SimulationOptions(integrator="rk4") does: a field whose
    setter takes more than its getter returns is a _Field[read type, assigned type]."""
    node = stub_classes()[cls.__name__]
    takes = {a.arg: ast.unparse(a.annotation) for a in method(node, "__init__").args.kwonlyargs}
    for field in node.body:
        if isinstance(field, ast.AnnAssign) and field.target.id in takes:
            declared = ast.unparse(field.annotation)
            wanted = takes[field.target.id]
            assert declared == wanted or (declared.startswith("_Field[") and declared.endswith(f", {wanted}]")), \
                f"{cls.__name__}.{field.target.id}: {declared} is not assignable from {wanted}"


def test_shipped_models_declare_their_sizes_and_the_new_names_are_in_the_stub():
    classes = stub_classes()
    for name in ("PendulumChain", "FourBar", "Mechanism", "AndrewsSqueezer"):
        properties = {f.name for f in classes[name].body if isinstance(f, ast.FunctionDef)
                      and any(ast.unparse(d) == "property" for d in f.decorator_list)}
        assert {"nq", "nc", "nu"} <= properties, name
    functions = {n.name for n in ast.parse(STUB.read_text()).body if isinstance(n, ast.FunctionDef)}
    assert {"sweep", "significant_correct_digits", "mixed_error_significant_digits"} <= functions
    recording = {f.name for f in classes["Recording"].body if isinstance(f, ast.FunctionDef)}
    assert {"__getitem__", "__iter__", "__init__"} <= recording


USER_CODE = '''
import numpy as np
import kktdae

opts = kktdae.SimulationOptions(integrator="rk4", dt=0.01, steps=10)
opts.integrator = "rk4"
opts.kkt.form = "block"
opts.adaptive.atol_per_component = [1e-8, 1e-8]
label: str = opts.integrator.label
chain = kktdae.PendulumChain(2)
n: int = chain.nq + chain.nq()
result = kktdae.simulate(chain, kktdae.State(np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])), opts)
assert result.recording is not None
t: float = result.recording[0].t
every_other: kktdae.Recording = result.recording[::2]
results: list = kktdae.sweep(chain, [chain.initial_state(0.0)] * 2, opts, threads=2)
'''


def test_mypy_accepts_what_the_module_accepts_and_refuses_a_wrong_type(tmp_path):
    """Runs mypy when it is installed (Debian 12: apt-get install python3-mypy; not in scripts/deps.sh,
    so CI skips this and the AST checks above stand in for it)."""
    pytest.importorskip("mypy")
    import os
    import subprocess
    import sys
    (tmp_path / "user.py").write_text(USER_CODE + 'opts.integrator = 3\nchain.nq = 7\n')
    env = dict(os.environ, PYTHONPATH=str(Path(kktdae.__file__).parents[1]))
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, "user.py"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    lines = len(USER_CODE.splitlines())
    assert sorted({int(e.split(":")[1]) for e in errors}) == [lines + 1, lines + 2], run.stdout
    assert "read-only" in run.stdout
    exec(compile(USER_CODE, "user.py", "exec"), {})  # and the same code runs

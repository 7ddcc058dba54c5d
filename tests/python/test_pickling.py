"""pickle, copy and deepcopy of the options structs and State (multiprocessing sends them so)."""
import copy
import pickle

import numpy as np
import pytest

import kktdae


def keyword_classes():
    """Every class built as Options(field=value, ...)."""
    found = []
    for name in sorted(dir(kktdae)):
        cls = getattr(kktdae, name)
        doc = getattr(getattr(cls, "__init__", None), "__doc__", "") or ""
        if isinstance(cls, type) and "each keyword assigned to the field" in doc:
            found.append(cls)
    assert len(found) >= 10, found
    return found


def fields(value):
    """A comparable picture of a value: options as {field: picture}, enums by label, arrays as lists."""
    if hasattr(value, "__getstate__") and isinstance(value.__getstate__(), dict) and \
            type(value).__module__.startswith("kktdae"):
        return {k: fields(v) for k, v in value.__getstate__().items()}
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tolist())
    if hasattr(value, "label"):
        return ("enum", type(value).__name__, value.label)
    if isinstance(value, list):
        return [fields(v) for v in value]
    return value


def test_the_acceptance_case_round_trips():
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.01, steps=10)
    back = pickle.loads(pickle.dumps(options))
    assert back.integrator == kktdae.Integrator.RK4 and back.dt == 0.01 and back.steps == 10
    assert back.end_time is None
    assert fields(back) == fields(options)


def test_nested_options_and_changed_defaults_survive_every_protocol():
    options = kktdae.SimulationOptions(integrator="generalized_alpha", dt=0.002, end_time=1.5, observe_every=4,
                                       stabilization=kktdae.Stabilization.critical(20.0),
                                       observed_multiplier="method", project_initial_state=True)
    options.kkt = kktdae.KktOptions(form="block")
    options.generalized_alpha.rho_inf = 0.6
    options.adaptive.atol_per_component = np.array([1e-8, 2e-8])
    options.divergence.enabled = False
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(options, protocol=protocol))
        assert fields(back) == fields(options)
        assert back.stabilization.describe() == options.stabilization.describe()
        assert back.generalized_alpha.rho_inf == 0.6 and back.kkt.form.label == "block"
    assert fields(options)["steps"] is None and fields(options)["end_time"] == 1.5


@pytest.mark.parametrize("cls", keyword_classes(), ids=lambda c: c.__name__)
def test_every_options_class_pickles_and_deep_copies(cls):
    made = cls()
    for back in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made), copy.copy(made)):
        assert type(back) is cls and back is not made
        assert fields(back) == fields(made)


def test_a_deep_copy_is_independent():
    options = kktdae.SimulationOptions(steps=10)
    twin = copy.deepcopy(options)
    twin.kkt.form = "block"
    twin.steps = 20
    assert options.steps == 10 and options.kkt.form.label == "schur"


def test_state_round_trips_bit_for_bit(chain):
    state = kktdae.State(chain.initial_state(0.0137).q, np.linspace(-1.0, 1.0, 6) / 3.0, 0.1 + 0.2)
    for back in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert back.t == state.t
        assert np.array_equal(back.q, state.q) and np.array_equal(back.v, state.v)
    with pytest.raises(ValueError, match="pickled state"):
        kktdae.State.__new__(kktdae.State).__setstate__((0.0, [1.0]))


def test_options_holding_python_callables_refuse_to_pickle_with_the_reason():
    options = kktdae.SimulationOptions(events=[kktdae.Event(name="ground", g=lambda t, q, v, lam: q[1])])
    with pytest.raises(Exception, match="pickle"):
        pickle.dumps(options)


# ---- results and models --------------------------------------------------------------------------

def readable_fields(cls):
    """The read-only data attributes Python sees on a result struct (its properties without setter)."""
    return {name for name, value in vars(cls).items()
            if isinstance(value, property) and value.fset is None and not name.startswith("_")}


def picture(value):
    """Every readable field of a result struct, recursively, with arrays as (dtype, shape, bytes)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return [picture(v) for v in value]
    if type(value).__module__.startswith("kktdae") and not hasattr(value, "label"):
        return {name: picture(getattr(value, name)) for name in sorted(readable_fields(type(value)))}
    return value


def eventful_run(chain, state):
    """A run whose Summary has events, warnings and notes: every kind of field is filled."""
    under = kktdae.Event(name="under", g=lambda t, q, v, lam: [q[0]], direction="falling", action="record")
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.01, steps=80, events=[under], warn_phi_inf=1e-12,
                                       project_initial_state=True)
    return kktdae.simulate(chain, chain.initial_state(0.3), options)


def test_a_result_round_trips_every_summary_field_and_the_recording_bit_for_bit(chain, state):
    result = eventful_run(chain, state)
    summary = result.summary
    assert summary.events and summary.warnings and summary.ok
    # The pickled state lists every field Python reads, so a field added to Summary is not forgotten.
    computed = {"ok", "stopped_by_event"}
    assert set(summary.__getstate__()) == readable_fields(kktdae.Summary) - computed
    assert set(summary.events[0].__getstate__()) == readable_fields(kktdae.FiredEvent)
    assert set(summary.warnings[0].__getstate__()) == readable_fields(kktdae.RunWarning)
    for back in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result), copy.copy(result)):
        assert type(back) is kktdae.SimulationResult
        assert picture(back.summary) == picture(summary)
        assert picture(back.recording) == picture(result.recording)
        assert back.recording.violation_measure == result.recording.violation_measure
        assert back.summary.brief_report() == summary.brief_report()
    copied = copy.deepcopy(result)
    assert copied.recording.q is not result.recording.q


def test_a_failed_result_keeps_its_status_and_its_exception_type():
    class Broken(kktdae.ModelWrapper):
        def bias(self, q, v, t):
            if t > 0.02:
                raise KeyError("no entry")
            return self.model.bias(q, v, t)
    chain = kktdae.PendulumChain(2)
    result = kktdae.simulate(Broken(chain), chain.initial_state(0.1), kktdae.SimulationOptions(steps=10))
    back = pickle.loads(pickle.dumps(result))
    assert back.summary.status == kktdae.RunStatus.MODEL_ERROR and back.summary.message == result.summary.message
    assert type(back.exception) is KeyError and back.exception.args == ("no entry",)
    assert len(back.recording) == len(result.recording)


def test_a_bad_pickled_state_is_refused_by_name(chain, state):
    summary = kktdae.simulate(chain, state, kktdae.SimulationOptions(steps=2)).summary
    saved = summary.__getstate__()
    del saved["kkt_solves"]
    with pytest.raises(ValueError, match="Summary: the pickled state has no field 'kkt_solves'"):
        kktdae.Summary.__new__(kktdae.Summary).__setstate__(saved)
    with pytest.raises(ValueError, match=r"Recording: q must have shape \(3, nq\)"):
        kktdae.Recording(t=np.zeros(3), q=np.zeros((2, 6)), v=np.zeros((3, 6)), lam=np.zeros((3, 2)),
                         violation=np.zeros(3), energy=np.zeros(3))


def shipped_models():
    four = kktdae.FourBarParams(crank=1.2)
    return [kktdae.PendulumChain(kktdae.PendulumChainParams(masses=[1.0, 2.0, 0.5], lengths=[1.0, 0.7, 1.3])),
            kktdae.SpringChain(kktdae.SpringChainParams(chain=kktdae.PendulumChainParams.uniform(3),
                                                        joint_stiffness=4.0, joint_damping=0.1)),
            kktdae.CircleMass(kktdae.CircleMassParams(radius=2.0)),
            kktdae.PointOnPlane(kktdae.PointOnPlaneParams(dimension=3, normal=[0.0, 1.0, 1.0])),
            kktdae.FourBar(four), kktdae.SliderCrank(kktdae.SliderCrankParams(offset=0.1)),
            kktdae.ParticleSystem(kktdae.four_bar_twin(four)),
            kktdae.AndrewsSqueezer(), kktdae.CarAxis()]


@pytest.mark.parametrize("model", shipped_models(), ids=lambda m: type(m).__name__)
def test_a_shipped_model_is_rebuilt_from_its_parameters(model):
    rng = np.random.default_rng(7)
    q, v = rng.standard_normal(model.nq), rng.standard_normal(model.nq)
    for back in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model), copy.copy(model)):
        assert type(back) is type(model) and back is not model
        assert repr(getattr(back, "params", None)) == repr(getattr(model, "params", None))
        for method in ("mass_matrix", "constraint", "constraint_jacobian"):
            assert np.array_equal(getattr(back, method)(q), getattr(model, method)(q)), method
        assert np.array_equal(back.bias(q, v, 0.3), model.bias(q, v, 0.3))


def test_a_mechanism_is_refused_with_the_reason():
    top = kktdae.test_set_case("heavy_top")["system"]
    with pytest.raises(TypeError, match="cannot pickle Mechanism.*MechanismBuilder"):
        pickle.dumps(top)


class LabelledChain(kktdae.PendulumChain):
    """A shipped model subclassed for a helper: pickles as the chain plus its __dict__."""
    def describe(self):
        return f"{self.label}: {self.links} links"


def test_subclasses_pickle_as_python_does(state):
    from py_models import PyPendulumChain
    labelled = LabelledChain(2)
    labelled.label = "seed 000"
    back = pickle.loads(pickle.dumps(labelled))
    assert type(back) is LabelledChain and back.describe() == "seed 000: 2 links"
    python_model = PyPendulumChain(2)
    python_model.note = [1, 2]
    back = pickle.loads(pickle.dumps(python_model))
    assert type(back) is PyPendulumChain and back.__dict__.keys() == python_model.__dict__.keys()
    assert back.note == [1, 2] and back.note is not python_model.note
    options = kktdae.SimulationOptions(steps=20)
    a, b = kktdae.simulate(python_model, state, options), kktdae.simulate(back, state, options)
    assert np.array_equal(a.recording.q, b.recording.q)


def test_options_a_model_and_a_result_cross_a_spawned_process(state):
    import multiprocessing
    from pickling_worker import run
    chain = kktdae.PendulumChain(kktdae.PendulumChainParams(masses=[1.0, 2.0], lengths=[1.0, 0.5]))
    start = kktdae.State(chain.initial_state(0.2).q, np.zeros(6), 0.0)
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.01, steps=50,
                                       stabilization=kktdae.Stabilization.critical(20.0))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        remote = pool.apply(run, (chain, start, options))
    local = run(chain, start, options)
    assert remote.summary.ok and remote.summary.steps == local.summary.steps == 50
    for name in ("t", "q", "v", "lam", "violation", "energy"):
        assert np.array_equal(getattr(remote.recording, name), getattr(local.recording, name)), name


def test_a_contact_result_round_trips_every_field_bit_for_bit():
    # The ball: impacts, persistent contact (transitions) and a detected accumulation time.
    result = kktdae.simulate_contact(kktdae.contact_problem("ball"))
    summary = result.summary
    assert summary.ok and summary.impacts and summary.transitions and summary.zeno_time is not None
    # The pickled states list every field Python reads (ok is computed).
    assert set(summary.__getstate__()) == readable_fields(kktdae.ContactSummary) - {"ok"}
    assert set(summary.impacts[0].__getstate__()) == readable_fields(kktdae.ImpactRecord)
    assert set(summary.transitions[0].__getstate__()) == readable_fields(kktdae.ContactTransition)
    assert set(result.__getstate__()) == readable_fields(kktdae.ContactRunResult)
    for back in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result), copy.copy(result)):
        assert type(back) is kktdae.ContactRunResult
        assert picture(back) == picture(result)
        assert back.summary.brief_report() == summary.brief_report()
    no_zeno = kktdae.simulate_contact(kktdae.contact_problem("ball"), kktdae.ContactRunOptions(end_time=1.0))
    assert no_zeno.summary.zeno_time is None
    assert pickle.loads(pickle.dumps(no_zeno)).summary.zeno_time is None
    saved = summary.__getstate__()
    del saved["lcp_solves"]
    with pytest.raises(ValueError, match="ContactSummary: the pickled state has no field 'lcp_solves'"):
        kktdae.ContactSummary.__new__(kktdae.ContactSummary).__setstate__(saved)

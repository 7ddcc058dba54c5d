"""kktdae.Simulator: the step-at-a-time run lands on simulate()'s observed states bit for bit (fixed-step
and adaptive integrators, events and the recording included), keeps the last good state when a step
fails, copies, and refuses what simulate() refuses with the same words."""
import copy

import numpy as np
import pytest

import kktdae


def fixed_step_integrators():
    fixed = [i.label for i in kktdae.all_integrators() if not i.is_adaptive]
    assert {"euler", "semi_implicit", "rk4", "rattle", "generalized_alpha", "hht"} <= set(fixed), fixed
    return fixed


# rattle holds φ = 0 and J q̇ = 0 itself and refuses a projection after its steps.
CASES = [(name, stab) for name in fixed_step_integrators() for stab in ("critical", "project")
         if (name, stab) != ("rattle", "project")]


def options_for(integrator, stabilization, **extra):
    law = (kktdae.Stabilization.critical(20.0) if stabilization == "critical" else kktdae.Stabilization.projection())
    return kktdae.SimulationOptions(integrator=integrator, dt=0.005, stabilization=law, **extra)


def assert_same_bits(sim, rec, i):
    assert sim.t == rec.t[i]
    assert np.array_equal(sim.q, rec.q[i]), (i, sim.q - rec.q[i])
    assert np.array_equal(sim.v, rec.v[i]), (i, sim.v - rec.v[i])
    assert np.array_equal(sim.lam, rec.lam[i]), (i, sim.lam - rec.lam[i])


@pytest.mark.parametrize("integrator,stabilization", CASES)
def test_advance_to_simulates_observed_grid_reproduces_its_states_bit_for_bit(chain, state, integrator, stabilization):
    options = options_for(integrator, stabilization, steps=300, observe_every=7)
    rec = kktdae.simulate(chain, state, options).recording
    sim = kktdae.Simulator(chain, state, options)
    assert_same_bits(sim, rec, 0)
    for i in range(1, len(rec)):
        assert sim.advance_to(rec.t[i]) == kktdae.RunStatus.SUCCESS
        assert_same_bits(sim, rec, i)
    assert sim.steps == 300


@pytest.mark.parametrize("integrator", fixed_step_integrators())
def test_an_end_time_off_the_grid_takes_the_same_shortened_last_step(chain, state, integrator):
    options = options_for(integrator, "critical", end_time=0.4321)
    rec = kktdae.simulate(chain, state, options).recording
    sim = kktdae.Simulator(chain, state, options)
    assert sim.advance_to(0.4321) == kktdae.RunStatus.SUCCESS
    assert_same_bits(sim, rec, len(rec) - 1)
    assert sim.t == 0.4321 and sim.steps == 87


def test_step_walks_the_grid_and_equals_advance_to(chain, state):
    options = options_for("rk4", "critical", steps=50)
    rec = kktdae.simulate(chain, state, options).recording
    sim = kktdae.Simulator(chain, state, options)
    for i in range(1, 51):
        assert sim.step() == kktdae.RunStatus.SUCCESS
        assert_same_bits(sim, rec, i)


@pytest.mark.parametrize("integrator", ["euler", "semi_implicit", "rk4"])
def test_a_copy_goes_on_as_the_original_would(chain, state, integrator):
    options = options_for(integrator, "critical", steps=200)
    rec = kktdae.simulate(chain, state, options).recording
    sim = kktdae.Simulator(chain, state, options)
    sim.advance_to(rec.t[80])
    twin, deep = sim.copy(), copy.deepcopy(sim)
    sim.advance_to(rec.t[120])                      # the original moves on: the copies do not follow
    assert twin.t == deep.t == rec.t[80] and twin.steps == 80
    for other in (twin, deep):
        other.advance_to(rec.t[200])
        assert_same_bits(other, rec, 200)


def test_reset_and_set_state_restart_from_a_saved_state(chain, state):
    options = options_for("semi_implicit", "critical", steps=100)
    sim = kktdae.Simulator(chain, state, options)
    sim.advance_to(0.25)
    saved = sim.get_state()
    sim.advance_to(0.5)
    after = (sim.q.copy(), sim.v.copy())
    sim.set_state(saved)                             # the grid starts again at saved.t
    assert sim.t == saved.t and sim.steps == 0 and np.array_equal(sim.q, saved.q)
    sim.advance_to(0.5)
    assert sim.steps == 50
    # semi-implicit Euler on this chain does not read t: the same 50 steps, the same bits
    assert np.array_equal(sim.q, after[0]) and np.array_equal(sim.v, after[1])
    sim.reset(state)
    assert sim.t == 0.0 and np.array_equal(sim.q, state.q)


def test_a_failed_step_keeps_the_last_good_state_and_matches_simulate(chain, state):
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.05, steps=2000,
                                       stabilization=kktdae.Stabilization.critical(400.0))
    options.divergence = kktdae.DivergenceOptions(enabled=False)   # the failure this test wants is the solver's
    result = kktdae.simulate(chain, state, options)
    summary, rec = result.summary, result.recording
    assert not summary.ok and summary.failed_step > 1, summary.message
    sim = kktdae.Simulator(chain, state, options)
    status = sim.advance_to(100.0)
    assert status == summary.status == sim.status
    assert sim.steps == summary.failed_step - 1
    assert np.array_equal(sim.q, rec.q[-1]) and sim.t == rec.t[-1]
    assert sim.message and f"step {summary.failed_step}" in sim.message
    assert sim.step() == status and sim.steps == summary.failed_step - 1   # stays failed until reset
    sim.reset(state)
    assert sim.status == kktdae.RunStatus.SUCCESS and sim.message == ""


@pytest.mark.parametrize("integrator", ["rk4", "cvode_bdf"])
def test_a_blow_up_ends_as_diverged_at_simulates_step_with_its_message(chain, state, integrator):
    # The same rk4 run with the divergence rules on: the chain blows up and simulate() ends it as
    # DIVERGED before the solver fails; so does the Simulator, at the same step, the state kept.
    options = kktdae.SimulationOptions(integrator=integrator, dt=0.05, steps=2000,
                                       stabilization=kktdae.Stabilization.critical(400.0))
    if integrator == "cvode_bdf":   # a healthy run, an energy rule far too tight for it
        options.stabilization = kktdae.Stabilization.baumgarte(10.0, 10.0)
        options.divergence = kktdae.DivergenceOptions(energy_factor=1e-7)
    result = kktdae.simulate(chain, state, options)
    summary, rec = result.summary, result.recording
    assert summary.status == kktdae.RunStatus.DIVERGED, summary.message
    sim = kktdae.Simulator(chain, state, options)
    status = kktdae.RunStatus.SUCCESS
    k = 0
    while status == kktdae.RunStatus.SUCCESS and k < 2000:
        k += 1
        status = sim.advance_to(0.05 * k)
    assert status == kktdae.RunStatus.DIVERGED == sim.status
    assert sim.message == summary.message and "diverged at step" in sim.message
    assert np.array_equal(sim.q, rec.q[-1]) and sim.t == rec.t[-1]


def test_what_simulate_refuses_the_simulator_refuses_with_the_same_words(chain, state):
    options = options_for("rattle", "project", steps=10)
    with pytest.raises(ValueError, match="^stabilization.project_after_step: rattle") as refused:
        kktdae.simulate(chain, state, options)
    with pytest.raises(ValueError) as too:
        kktdae.Simulator(chain, state, options)
    assert str(too.value) == str(refused.value)


@pytest.mark.parametrize("integrator,stabilization", [("cvode_adams", "critical"), ("ida_ggl", None),
                                                       ("cvode_bdf", "project")])
def test_adaptive_advance_to_over_simulates_grid_reproduces_states_and_recording_bit_for_bit(
        chain, state, integrator, stabilization):
    law = {"critical": kktdae.Stabilization.critical(20.0), "project": kktdae.Stabilization.projection(),
           None: kktdae.Stabilization.none()}[stabilization]
    options = kktdae.SimulationOptions(integrator=integrator, dt=0.01, steps=50, stabilization=law,
                                       adaptive=kktdae.AdaptiveOptions(rtol=1e-8, atol=1e-10))
    result = kktdae.simulate(chain, state, options)
    rec = result.recording
    sim = kktdae.Simulator(chain, state, options, record=True)
    for i in range(1, len(rec)):
        assert sim.advance_to(rec.t[i]) == kktdae.RunStatus.SUCCESS
        assert_same_bits(sim, rec, i)
    mine = sim.recording
    for field in ("t", "q", "v", "lam", "violation", "energy"):
        assert np.array_equal(getattr(mine, field), getattr(rec, field)), field
    assert sim.steps == result.summary.steps == sim.summary.steps
    assert sim.summary.rhs_evaluations == result.summary.rhs_evaluations


def test_adaptive_step_is_one_internal_step_and_a_copy_restarts_the_solver(chain, state):
    options = kktdae.SimulationOptions(integrator="cvode_bdf", dt=0.01,
                                       adaptive=kktdae.AdaptiveOptions(rtol=1e-8, atol=1e-10))
    sim = kktdae.Simulator(chain, state, options)
    times = []
    for k in range(1, 21):
        assert sim.step() == kktdae.RunStatus.SUCCESS and sim.steps == k
        times.append(sim.t)
    assert all(a < b for a, b in zip(times, times[1:]))
    twin = sim.copy()                      # SUNDIALS memory is not cloned: the twin restarts there
    assert twin.t == sim.t and twin.steps == 0
    sim.advance_to(0.5)
    twin.advance_to(0.5)
    assert np.max(np.abs(twin.q - sim.q)) < 1e-6 and not np.array_equal(twin.q, sim.q)


@pytest.mark.parametrize("integrator", ["rk4", "cvode_adams"])
def test_events_are_located_as_simulate_locates_them_and_a_stop_event_stops_it(integrator):
    chain = kktdae.PendulumChain(1)
    start = chain.initial_state(0.0)          # released from horizontal: x = 0 at T/4 and 3T/4
    vertical = kktdae.Event(name="vertical", g=lambda t, q, v, lam: [q[0]])
    back = kktdae.Event(name="back", g=lambda t, q, v, lam: [q[0]], direction="rising", action="stop")
    options = kktdae.SimulationOptions(integrator=integrator, dt=0.005, steps=400, events=[vertical, back],
                                       adaptive=kktdae.AdaptiveOptions(rtol=1e-9, atol=1e-11))
    result = kktdae.simulate(chain, start, options)
    assert result.summary.status == kktdae.RunStatus.STOPPED_BY_EVENT
    sim = kktdae.Simulator(chain, start, options, record=True)
    status = kktdae.RunStatus.SUCCESS
    for t in options.dt * np.arange(1, 401):
        status = sim.advance_to(t)
        if status != kktdae.RunStatus.SUCCESS:
            break
    assert status == sim.status == kktdae.RunStatus.STOPPED_BY_EVENT and sim.message == result.summary.message
    assert [(e.name, e.time, e.step) for e in sim.events] == [(e.name, e.time, e.step) for e in result.summary.events]
    assert np.array_equal(sim.events[-1].q, result.summary.events[-1].q)
    assert sim.t == sim.events[-1].time and np.array_equal(sim.q, sim.events[-1].q)
    assert np.array_equal(sim.recording.q, result.recording.q) and np.array_equal(sim.recording.t, result.recording.t)
    assert sim.step() == kktdae.RunStatus.STOPPED_BY_EVENT           # stopped until reset
    sim.reset(sim.get_state())
    assert sim.status == kktdae.RunStatus.SUCCESS and sim.events == [] and len(sim.recording) == 1


def test_bad_times_and_states_raise_naming_them(chain, state):
    sim = kktdae.Simulator(chain, state, kktdae.SimulationOptions(dt=0.01))
    sim.advance_to(0.1)
    with pytest.raises(ValueError, match=r"^t: 0\.05 s is before the Simulator's time 0\.1"):
        sim.advance_to(0.05)
    with pytest.raises(ValueError, match="^t: must be finite, got nan"):
        sim.advance_to(float("nan"))
    with pytest.raises(ValueError, match="q"):
        sim.reset(kktdae.State(np.zeros(5)))
    assert sim.advance_to(0.1) == kktdae.RunStatus.SUCCESS and sim.steps == 10   # already there


def test_a_python_models_exception_is_raised_as_itself_and_the_state_kept(chain, state):
    class Broken(kktdae.ModelWrapper):
        def bias(self, q, v, t):
            if t > 0.0499:
                raise KeyError(f"no table entry for t = {t:.3f}")
            return self.model.bias(q, v, t)

    sim = kktdae.Simulator(Broken(chain), state, kktdae.SimulationOptions(integrator="rk4", dt=0.01))
    sim.advance_to(0.04)
    before = sim.get_state()
    with pytest.raises(KeyError, match="no table entry"):
        sim.step()
    assert sim.t == before.t and np.array_equal(sim.q, before.q) and np.array_equal(sim.v, before.v)


def test_a_controller_drives_it_as_it_drives_simulate():
    params = kktdae.FourBarParams(gravity=0.0)
    model = kktdae.FourBar(params)
    start = kktdae.four_bar_state(params, 0.7, 0.0)
    options = kktdae.SimulationOptions(integrator="rk4", dt=0.001, steps=200)

    def torque(t, q, v):
        return np.array([5.0 * np.cos(3.0 * t)])

    rec = kktdae.simulate(model, start, options, controller=torque).recording
    sim = kktdae.Simulator(model, start, options, controller=torque)
    sim.advance_to(rec.t[-1])
    assert_same_bits(sim, rec, len(rec) - 1)
    assert not np.array_equal(rec.q[-1], start.q)
    with pytest.raises(ValueError, match="^controller: given, but"):
        kktdae.Simulator(kktdae.PendulumChain(2), kktdae.PendulumChain(2).initial_state(0.0), options,
                         controller=torque)

// The fixed-step driver: one loop over a stepper (reset, then step, bookkeeping, settle). The loop
// is a template over how it reaches the stepper: through the FixedStepper contract's virtual calls
// (RATTLE, generalized-α, HHT), or, for the explicit methods, through ExplicitStepper's inline
// calls into one reused KktResult, chosen once per run. For a two-link chain the virtual calls and
// the StepReports they return cost about a tenth of a step (docs/notes/performance-profile.md); the
// bookkeeping and so every result are the same on both.
// For the explicit methods the solve at each settled state serves the observer's λ and the
// next step's first stage.
#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_stepper.hpp"
#include "event_runner.hpp"
#include "../integrators/explicit_stepper.hpp"
#include "physical_multiplier.hpp"
#include "run_recorder.hpp"

namespace kktdae::detail {
namespace {

/// Any FixedStepper through its virtual contract; the failed call's report is kept for the message.
class ContractSteps {
 public:
  explicit ContractSteps(FixedStepper& stepper) : stepper_(stepper) {}

  bool reset(const State& state) { return settled(stepper_.reset(state)); }
  /// One step; q_inf receives ‖q‖∞ of the new state when it is finite (q̇ too), NaN otherwise.
  bool advance(State& state, double dt, double& q_inf) {
    StepReport stepped = stepper_.step(state, dt);
    if (!stepped.ok()) {
      failure_ = std::move(stepped);
      return false;
    }
    q_inf = finiteMaxAbs(state.q, state.v);
    return true;
  }
  bool settle(const State& state) { return settled(stepper_.settle(state)); }
  /// The reciprocal condition of the last good reset() or settle().
  double rcond() const { return rcond_; }
  const StepReport& failure() const { return failure_; }
  const Vector& lambda() const { return stepper_.lambda(); }
  const KktWorkspace& terms() const { return stepper_.terms(); }

 private:
  FixedStepper& stepper_;
  StepReport failure_;
  double rcond_ = 0.0;

  bool settled(StepReport report) {
    if (report.ok()) {
      rcond_ = report.kkt.rcond;
      return true;
    }
    failure_ = std::move(report);
    return false;
  }
};

/// The explicit methods' inline path: the same calls as ContractSteps' without virtual dispatch,
/// StepReport or per-call KktResult (ExplicitStepper is final, so lambda() and terms() inline too).
class ExplicitSteps {
 public:
  explicit ExplicitSteps(ExplicitStepper& stepper) : stepper_(stepper) {}

  bool reset(const State& state) { return stepper_.solveAt(state); }
  bool advance(State& state, double dt, double& q_inf) { return stepper_.advance(state, dt, q_inf); }
  bool settle(const State& state) { return stepper_.solveAt(state); }
  double rcond() const { return stepper_.result().rcond; }
  StepReport failure() const { return StepReport{stepper_.result(), false, 0, 0.0, {}}; }
  const Vector& lambda() const { return stepper_.lambda(); }
  const KktWorkspace& terms() const { return stepper_.terms(); }

 private:
  ExplicitStepper& stepper_;
};

/// What the loop shares with the setup in simulateFixedStep().
struct RunContext {
  const ConstrainedSystem& system;
  const State& initial;
  const SimulationOptions& options;
  RunRecorder& recorder;
  EventRunner& events;
  ProjectionWorkspace& projection_ws;
  PhysicalMultiplier& physical;
  /// The events may use the multiplier handed to the observer at step ends (the physical one,
  /// or the stepper's own where that is its KKT solve there); otherwise they solve for theirs.
  bool events_take_observed;
};

/// The solve for the observed multiplier failed at step k (0: the initial state).
Summary multiplierFailure(RunRecorder& recorder, long k, double t, const std::string& failure) {
  recorder.summary().failed_step = k;
  return recorder.finish(RunStatus::KktFailure, (k == 0 ? std::string("at the initial state")
                                                        : "after step " + std::to_string(k)) +
                                                    " (t = " + formatDouble(t) + " s): " + failure);
}

Summary stepFailure(RunRecorder& recorder, const StepReport& report, long step_index, double t, const char* where) {
  recorder.summary().failed_step = step_index;
  if (report.newton_failed) {
    return recorder.finish(RunStatus::SolverFailure, "Newton failed at step " + std::to_string(step_index) +
                                                         " (t = " + formatDouble(t) + " s): " + report.message);
  }
  const KktResult& kkt = report.kkt;
  return recorder.finish(RunStatus::KktFailure, "KKT solve failed (" + std::string(toString(kkt.status)) +
                                                    ") at step " + std::to_string(step_index) + ", t = " +
                                                    formatDouble(t) + " s, " + where + ": " + kkt.message +
                                                    describeRows(kkt.offending_rows));
}

/// An event's g, its callback or observer, or the KKT solve for its λ threw at step k (0: the
/// initial state): the run ends as a ModelError that blames the event, as the SUNDIALS drivers'
/// messages do, not the model.
Summary eventFailure(RunRecorder& recorder, long k, double t, const std::exception& error) {
  recorder.summary().failed_step = k;
  return recorder.finish(RunStatus::ModelError, "an event failed " +
                                                    (k == 0 ? std::string("at the initial state")
                                                            : "after step " + std::to_string(k)) +
                                                    " (t = " + formatDouble(t) + " s): " + error.what());
}

template <class Steps>
Summary runSteps(Steps& stepper, const RunContext& run) {
  const SimulationOptions& options = run.options;
  RunRecorder& recorder = run.recorder;
  EventRunner& events = run.events;
  Summary& summary = recorder.summary();
  const bool project = options.stabilization.project_after_step;
  const long steps = options.gridSteps(run.initial.t);
  State state = run.initial;
  try {
    std::string failure;
    if (!projectInitialState(run.system, state, options, summary, failure)) {
      summary.failed_step = 0;
      return recorder.finish(RunStatus::InitFailure, failure);
    }
    recorder.armDivergence(state);
    if (!stepper.reset(state)) return stepFailure(recorder, stepper.failure(), 0, state.t, "at the initial state");
    recorder.noteStart(state.t, stepper.terms());
    // The multiplier the observer and the events get: the stepper's own, or the physical one
    // solved for where it is not that and someone reads it.
    PhysicalMultiplier& physical = run.physical;
    const Vector* lambda = &stepper.lambda();
    if (physical.solves() && (events.active() || recorder.observerReadsMultiplier())) {
      lambda = physical.at(state.t, state.q, state.v, stepper.lambda(), failure);
      if (lambda == nullptr) return multiplierFailure(recorder, 0, state.t, failure);
    }
    recorder.observeState(state.t, state.q, state.v, *lambda, stepper.terms(), stepper.rcond());
    if (events.active()) {
      try {
        events.start(state.t, state.q, state.v, run.events_take_observed ? lambda : nullptr);
      } catch (const std::exception& error) {
        return eventFailure(recorder, 0, state.t, error);
      }
    }

    // The loop builds no text on the good path: the messages exist only on failure.
    for (long k = 1; k <= steps; ++k) {
      recorder.beginStep(k);
      if (recorder.interruptRequested()) return recorder.finishInterrupted();
      const double t_before = state.t;
      const double t_after = options.gridTime(run.initial.t, k);
      // Every step but a shortened last one takes dt itself (not t_after − t_before): the
      // seeds' bytes depend on it.
      const double h = (options.end_time && k == steps) ? t_after - t_before : options.dt;
      // The step's pass over q and q̇ also gives their finiteness and the ‖q‖∞ the divergence rule needs.
      double q_inf = 0.0;
      if (!stepper.advance(state, h, q_inf)) {
        return stepFailure(recorder, stepper.failure(), k, t_before, "in an inner stage of the step");
      }
      state.t = t_after;
      if (std::isnan(q_inf)) {
        summary.failed_step = k;
        return recorder.finish(RunStatus::NonFiniteState, "non-finite state after step " + std::to_string(k) +
                                                              " (t = " + formatDouble(state.t) +
                                                              " s): " + firstNonFinite(state.q, state.v));
      }
      if (project) {
        const ProjectionReport projection = projectToManifold(run.system, state, options.projection, run.projection_ws);
        if (!projection.converged) {
          summary.failed_step = k;
          return recorder.finish(RunStatus::ProjectionFailure, "projection after step " + std::to_string(k) +
                                                                   " (t = " + formatDouble(state.t) +
                                                                   " s) failed: " + projection.message);
        }
        recorder.countProjection(projection);
        q_inf = maxAbs(state.q);
      }
      if (!stepper.settle(state)) {
        return stepFailure(recorder, stepper.failure(), k, state.t, "at the state the step reached");
      }
      const KktWorkspace& terms = stepper.terms();
      if (const DivergenceVerdict verdict = recorder.divergence(q_inf, terms);
          verdict != DivergenceVerdict::Plausible) {
        return recorder.finishDiverged(state.t, verdict, state.q, state.v, terms);
      }
      if (recorder.runawayDue(k, steps)) {
        if (const DivergenceVerdict verdict = recorder.runaway(state.t, state.q, state.v, terms);
            verdict != DivergenceVerdict::Plausible) {
          return recorder.finishDiverged(state.t, verdict, state.q, state.v, terms);
        }
      }
      summary.steps = k;
      const bool observed = k % options.observe_every == 0 || k == steps;
      lambda = &stepper.lambda();
      if (physical.solves() && (events.active() || (observed && recorder.observerReadsMultiplier()))) {
        lambda = physical.at(state.t, state.q, state.v, stepper.lambda(), failure);
        if (lambda == nullptr) return multiplierFailure(recorder, k, state.t, failure);
      }
      if (events.active()) {
        bool stop = false;
        try {
          stop = events.afterStep(k, state.t, state.q, state.v, run.events_take_observed ? lambda : nullptr);
        } catch (const std::exception& error) {
          return eventFailure(recorder, k, state.t, error);
        }
        if (stop) return events.finishStopped(recorder);
      }
      if (observed) {
        recorder.observeState(state.t, state.q, state.v, *lambda, terms, stepper.rcond());
      } else {
        recorder.track(state.t, terms, stepper.rcond());
      }
    }
    return recorder.finish(RunStatus::Success, "");
  } catch (const std::exception& error) {
    return recorder.abort(error);
  }
}

}  // namespace

FixedStepperSetup fixedStepperSetup(const SimulationOptions& options) {
  FixedStepperSetup setup;
  setup.integrator = options.integrator;
  setup.stabilization = options.stabilization;
  setup.kkt = options.kkt;
  setup.controller = options.controller;
  setup.rattle = options.rattle;
  setup.generalized_alpha = options.generalized_alpha;
  return setup;
}

Summary simulateFixedStep(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                          StateObserver* observer) {
  const std::unique_ptr<FixedStepper> stepper = makeFixedStepper(system, fixedStepperSetup(options));
  RunRecorder recorder(system, options, observer, initial);
  Summary& summary = recorder.summary();
  PhysicalMultiplier physical(system, options);
  recorder.attach(stepper->accelerationFunction(), [&](Summary& counted) {
    counted.kkt_solves = stepper->solves();
    counted.observation_kkt_solves = physical.solveCount();
    counted.rhs_evaluations = stepper->modelEvaluations();
    counted.newton_iterations = stepper->newtonIterations();
    counted.jacobian_evaluations = stepper->jacobianEvaluations();
    counted.linear_solver_setups = stepper->factorizations();
    counted.notes += stepper->runNotes();
  });
  summary.notes += stepper->notes();
  ProjectionWorkspace projection_ws(system, options.kkt);
  // Events watch the step ends and search inside a step on its Hermite interpolant; they never
  // touch the stepper, so the trajectory is the one without them.
  EventRunner events(system, options, physical.eventLaw(), summary);
  // The events use the multiplier the observer gets where it is a KKT solve at the step end (the
  // physical one, or the explicit methods' own); otherwise (RATTLE's impulse average under
  // ObservedMultiplier::Method) they solve for their own.
  const RunContext run{system,        initial,  options,
                       recorder,      events,   projection_ws,
                       physical,      physical.eventsTakeObserved(stepper->lambdaIsKktSolve())};
  if (auto* explicit_stepper = dynamic_cast<ExplicitStepper*>(stepper.get())) {
    ExplicitSteps steps(*explicit_stepper);
    return runSteps(steps, run);
  }
  ContractSteps steps(*stepper);
  return runSteps(steps, run);
}

}  // namespace kktdae::detail

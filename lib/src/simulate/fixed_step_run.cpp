// The fixed-step driver: one loop over a FixedStepper (reset, then step, bookkeeping, settle).
// For the explicit methods the solve at each settled state serves the observer's λ and the
// next step's first stage.
#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_stepper.hpp"
#include "event_runner.hpp"
#include "run_recorder.hpp"

namespace kktdae::detail {

Summary simulateFixedStep(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                          StateObserver* observer) {
  FixedStepperSetup setup;
  setup.integrator = options.integrator;
  setup.stabilization = options.stabilization;
  setup.kkt = options.kkt;
  setup.controller = options.controller;
  setup.rattle = options.rattle;
  setup.generalized_alpha = options.generalized_alpha;
  const std::unique_ptr<FixedStepper> stepper = makeFixedStepper(system, setup);
  RunRecorder recorder(system, options, observer, initial);
  Summary& summary = recorder.summary();
  recorder.attach(stepper->accelerationFunction(), [&](Summary& counted) {
    counted.kkt_solves = stepper->solves();
    counted.rhs_evaluations = stepper->modelEvaluations();
    counted.newton_iterations = stepper->newtonIterations();
    counted.jacobian_evaluations = stepper->jacobianEvaluations();
    counted.linear_solver_setups = stepper->factorizations();
    counted.notes += stepper->runNotes();
  });
  summary.notes += stepper->notes();
  ProjectionWorkspace projection_ws(system, options.kkt);
  const bool project = options.stabilization.project_after_step;
  const long steps = options.gridSteps(initial.t);
  State state = initial;
  // Events watch the step ends and search inside a step on its Hermite interpolant; they never
  // touch the stepper, so the trajectory is the one without them.
  EventRunner events(system, options, options.stabilization, summary);
  // Where the stepper's λ is the KKT solve's at the settled state the events use it; otherwise
  // (RATTLE's impulse average) they solve for their own.
  const bool stepper_lambda_is_kkt = stepper->lambdaIsKktSolve();

  auto stepFailure = [&](const StepReport& report, long step_index, double t, const char* where) {
    summary.failed_step = step_index;
    if (report.newton_failed) {
      return recorder.finish(RunStatus::SolverFailure, "Newton failed at step " + std::to_string(step_index) +
                                                           " (t = " + formatDouble(t) + " s): " + report.message);
    }
    const KktResult& kkt = report.kkt;
    return recorder.finish(RunStatus::KktFailure, "KKT solve failed (" + std::string(toString(kkt.status)) +
                                                      ") at step " + std::to_string(step_index) + ", t = " +
                                                      formatDouble(t) + " s, " + where + ": " + kkt.message +
                                                      describeRows(kkt.offending_rows));
  };

  try {
    std::string failure;
    if (!projectInitialState(system, state, options, summary, failure)) {
      summary.failed_step = 0;
      return recorder.finish(RunStatus::InitFailure, failure);
    }
    {
      const StepReport started = stepper->reset(state);
      if (!started.ok()) return stepFailure(started, 0, state.t, "at the initial state");
      recorder.observe(state.t, state.q, state.v, stepper->lambda(), stepper->terms(), started.kkt.rcond);
    }
    if (events.active()) events.start(state.t, state.q, state.v, stepper_lambda_is_kkt ? &stepper->lambda() : nullptr);

    // The loop builds no text and copies no report on the good path: each StepReport is made in
    // place and dropped at the end of its step, and the messages exist only on failure.
    for (long k = 1; k <= steps; ++k) {
      recorder.beginStep(k);
      if (recorder.interruptRequested()) return recorder.finishInterrupted();
      const double t_before = state.t;
      const double t_after = options.gridTime(initial.t, k);
      // Every step but a shortened last one takes dt itself (not t_after − t_before): the
      // seeds' bytes depend on it.
      const double h = (options.end_time && k == steps) ? t_after - t_before : options.dt;
      {
        const StepReport stepped = stepper->step(state, h);
        if (!stepped.ok()) return stepFailure(stepped, k, t_before, "in an inner stage of the step");
      }
      state.t = t_after;
      // One pass over q and q̇ gives their finiteness and the ‖q‖∞ the divergence rule needs.
      double q_inf = finiteMaxAbs(state.q, state.v);
      if (std::isnan(q_inf)) {
        summary.failed_step = k;
        return recorder.finish(RunStatus::NonFiniteState, "non-finite state after step " + std::to_string(k) +
                                                              " (t = " + formatDouble(state.t) +
                                                              " s): " + firstNonFinite(state.q, state.v));
      }
      if (project) {
        const ProjectionReport projection = projectToManifold(system, state, options.projection, projection_ws);
        if (!projection.converged) {
          summary.failed_step = k;
          return recorder.finish(RunStatus::ProjectionFailure, "projection after step " + std::to_string(k) +
                                                                   " (t = " + formatDouble(state.t) +
                                                                   " s) failed: " + projection.message);
        }
        recorder.countProjection(projection);
        q_inf = maxAbs(state.q);
      }
      const StepReport settled = stepper->settle(state);
      if (!settled.ok()) return stepFailure(settled, k, state.t, "at the state the step reached");
      const KktWorkspace& terms = stepper->terms();
      if (const DivergenceVerdict verdict = recorder.divergence(q_inf, terms);
          verdict != DivergenceVerdict::Plausible) {
        return recorder.finishDiverged(state.t, verdict, state.q, terms);
      }
      summary.steps = k;
      if (events.active() &&
          events.afterStep(k, state.t, state.q, state.v, stepper_lambda_is_kkt ? &stepper->lambda() : nullptr)) {
        return events.finishStopped(recorder);
      }
      if (k % options.observe_every == 0 || k == steps) {
        recorder.observe(state.t, state.q, state.v, stepper->lambda(), terms, settled.kkt.rcond);
      } else {
        recorder.track(state.t, terms, settled.kkt.rcond);
      }
    }
    return recorder.finish(RunStatus::Success, "");
  } catch (const std::exception& error) {
    return recorder.abort(error);
  }
}

}  // namespace kktdae::detail

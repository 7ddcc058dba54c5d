// simulate()'s driver for cvode_bdf, cvode_adams, ida_index1 and ida_ggl: the AdaptiveSolver
// (adaptive_solver.hpp) taken to each time of the output grid, and at each the bookkeeping the
// fixed-step driver does after a step: the constraint terms, the divergence rules, λ and the
// observer.
#include <cmath>

#include "../simulate/run_recorder.hpp"
#include "adaptive_solver.hpp"
#include "initial_state.hpp"
#include "sundials_events.hpp"

namespace kktdae::detail {

Summary simulateAdaptive(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                         const Observer& observer) {
  const bool ggl = options.integrator == Integrator::IdaGgl;
  RunRecorder recorder(system, options, observer, initial);
  Summary& summary = recorder.summary();
  noteAdaptiveSetup(options, summary.notes);
  AccelerationFunction f(system, adaptiveLaw(options), options.kkt, options.controller);
  // The physical multiplier, where the integrator's own is not it, is a KKT solve of its own at
  // each output (IDA's own λ is its algebraic unknown).
  PhysicalMultiplier physical(system, options);
  recorder.attach(f, [&](Summary& counted) { counted.observation_kkt_solves = physical.solveCount(); });
  SundialsEvents events(system, options, physical.eventLaw(), summary);
  events.own_lambda = !physical.solves();  // IDA's algebraic λ only under ObservedMultiplier::Method

  // Consistent initial values: GGL needs the state on the manifold (IDACalcIC cannot find λ, μ,
  // which do not appear in the constraint rows); λ and q̈ then come from the KKT solve.
  State start = initial;
  Vector qdd(system.nq());
  const bool ida = options.integrator == Integrator::IdaIndex1 || ggl;
  if (auto ended = startAdaptiveRun(system, options, recorder, f, physical, start, qdd, ggl,
                                    ida ? std::string(toString(options.integrator)) + ": " : "")) {
    return *ended;
  }
  std::unique_ptr<AdaptiveSolver> solver;
  try {
    solver = makeAdaptiveSolver(system, options, f, start, qdd, f.lambda(), recorder, events, summary);
  } catch (const AdaptiveSetupError& error) {
    return recorder.finish(RunStatus::SolverFailure, error.what());
  }

  const long steps = options.gridSteps(initial.t);
  std::string failure;  // why an output's terms or solve failed, if they did
  const auto failed = [&](long k, RunStatus status, const std::string& message) {
    solver->fillStatistics(summary);
    summary.failed_step = k;
    return recorder.finish(status, message);
  };
  try {
    for (long k = 1; k <= steps; ++k) {
      recorder.beginStep(k);
      if (recorder.interruptRequested()) {
        solver->fillStatistics(summary);
        return recorder.finishInterrupted();
      }
      const double t_out = options.gridTime(initial.t, k);
      const SolveOutcome outcome = solver->solve(t_out, false, options.adaptive.stop_at_outputs, k);
      if (outcome.end == SolveOutcome::End::EventStop) {
        solver->fillStatistics(summary);
        return events.runner.finishStopped(recorder);
      }
      if (outcome.end == SolveOutcome::End::Failed) {
        if (outcome.status == RunStatus::Interrupted) {
          solver->fillStatistics(summary);
          return recorder.finishInterrupted(outcome.t);
        }
        return failed(k, outcome.status, outcome.message);
      }
      const double t = outcome.t;
      const auto q = solver->q();
      const auto v = solver->v();
      const bool observed = k % options.observe_every == 0 || k == steps;
      // λ at the output state is for the observer alone: the recorder's ‖φ‖∞ and ‖φ̇‖∞ and the
      // divergence rule read φ, J and φ̇ only, which need no KKT solve (about 60 % of a
      // right-hand side's cost on seed 002's circle, once per output) and none of the other terms
      // (the next right-hand side evaluates and checks them at the state it is asked for).
      const bool needs_lambda = observed && recorder.hasObserver();
      const Vector* lambda = &f.lambda();  // read by no one where needs_lambda is false
      double rcond = std::nan("");
      if (needs_lambda && !physical.solves()) {
        lambda = solver->ownLambda(t, rcond, failure);
        if (lambda == nullptr) return failed(k, RunStatus::KktFailure, failure);
      } else if (!f.evaluateConstraintTerms(t, q, v, failure)) {
        return failed(k, RunStatus::KktFailure, "model terms failed at the output t = " + formatDouble(t) + " s: " +
                                                    failure);
      }
      if (const DivergenceVerdict verdict = recorder.divergence(t, q, v, f.workspace());
          verdict != DivergenceVerdict::Plausible) {
        solver->fillStatistics(summary);
        return recorder.finishDiverged(t, verdict, q, v, f.workspace());
      }
      if (needs_lambda && physical.solves()) {
        lambda = physical.solve(t, q, v, failure);
        if (lambda == nullptr) {
          return failed(k, RunStatus::KktFailure, "at the output t = " + formatDouble(t) + " s: " + failure);
        }
      }
      if (observed) {
        recorder.observe(t, q, v, *lambda, f.workspace(), rcond);
      } else {
        recorder.track(t, f.workspace(), std::nan(""));
      }
    }
  } catch (const std::exception& error) {  // from the observer or the output-state solve
    solver->fillStatistics(summary);
    return recorder.abort(error);
  }
  solver->fillStatistics(summary);
  return recorder.finish(RunStatus::Success, "");
}

}  // namespace kktdae::detail

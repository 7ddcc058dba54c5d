// The fixed-step driver: one KKT solve at each new state serves the observer's λ and the next
// step's first stage.
#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_steppers.hpp"
#include "run_recorder.hpp"

namespace kktdae::detail {
namespace {

using StepFunction = KktResult (*)(AccelerationFunction&, State&, double, ConstVectorRef, StepWorkspace&);

StepFunction stepFunctionFor(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler: return &explicitEulerStep;
    case Integrator::SemiImplicitEuler: return &semiImplicitEulerStep;
    case Integrator::Rk4: return &rk4Step;
    default: break;
  }
  throwInvalid("integrator", std::string(toString(integrator)) + " is not a fixed-step integrator");
}

}  // namespace

Summary simulateFixedStep(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                          const Observer& observer) {
  const StepFunction step = stepFunctionFor(options.integrator);
  RunRecorder recorder(system, options, observer, initial);
  Summary& summary = recorder.summary();
  AccelerationFunction f(system, options.stabilization, options.kkt, options.controller);
  recorder.attach(f, /*solves_are_evaluations=*/true);
  StepWorkspace step_ws(system.nq());
  ProjectionWorkspace projection_ws(system, options.kkt);
  const bool project = options.stabilization.project_after_step;
  const long steps = options.gridSteps(initial.t);
  State state = initial;
  Vector qdd = Vector::Zero(system.nq());

  auto kktFailure = [&](const KktResult& kkt, long step_index, double t, const char* where) {
    summary.failed_step = step_index;
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
    KktResult kkt = f.evaluate(state.t, state.q, state.v, qdd);
    if (!kkt.ok()) return kktFailure(kkt, 0, state.t, "at the initial state");
    recorder.observe(state.t, state.q, state.v, f.lambda(), f.workspace(), kkt.rcond);

    for (long k = 1; k <= steps; ++k) {
      recorder.beginStep(k);
      if (recorder.interruptRequested()) return recorder.finishInterrupted();
      const double t_before = state.t;
      const double t_after = options.gridTime(initial.t, k);
      // Every step but a shortened last one takes dt itself (not t_after − t_before): the
      // seeds' bytes depend on it.
      const double h = (options.end_time && k == steps) ? t_after - t_before : options.dt;
      kkt = step(f, state, h, qdd, step_ws);
      if (!kkt.ok()) return kktFailure(kkt, k, t_before, "in an inner stage of the step");
      state.t = t_after;
      if (!state.q.allFinite() || !state.v.allFinite()) {
        summary.failed_step = k;
        return recorder.finish(RunStatus::NonFiniteState, "non-finite state after step " + std::to_string(k) +
                                                              " (t = " + formatDouble(state.t) +
                                                              " s): " + firstNonFinite(state.q, state.v));
      }
      if (project) {
        const ProjectionReport report = projectToManifold(system, state, options.projection, projection_ws);
        if (!report.converged) {
          summary.failed_step = k;
          return recorder.finish(RunStatus::ProjectionFailure, "projection after step " + std::to_string(k) +
                                                                   " (t = " + formatDouble(state.t) +
                                                                   " s) failed: " + report.message);
        }
        recorder.countProjection(report);
      }
      kkt = f.evaluate(state.t, state.q, state.v, qdd);
      if (!kkt.ok()) return kktFailure(kkt, k, state.t, "at the state the step reached");
      if (const std::string why = recorder.divergence(state.q, f.workspace()); !why.empty()) {
        return recorder.finishDiverged(state.t, why);
      }
      summary.steps = k;
      if (k % options.observe_every == 0 || k == steps) {
        recorder.observe(state.t, state.q, state.v, f.lambda(), f.workspace(), kkt.rcond);
      } else {
        recorder.track(state.t, f.workspace(), kkt.rcond);
      }
    }
    return recorder.finish(RunStatus::Success, "");
  } catch (const std::exception& error) {
    return recorder.abort(error);
  }
}

}  // namespace kktdae::detail

#include "adaptive_solver.hpp"

#include "kktdae/core/checks.hpp"
#include "sundials_events.hpp"
#include "sundials_support.hpp"

namespace kktdae::detail {

SolveOutcome AdaptiveSolver::solve(double t_out, bool one_step, bool stop, long k) {
  SolveOutcome out;
  callbacks_.interrupted = false;  // a Simulator goes on after an interrupt
  const auto failed = [&](RunStatus status, std::string message) {
    out.end = SolveOutcome::End::Failed;
    out.status = status;
    out.message = std::move(message);
    return out;
  };
  if (stop) {
    const int flag = setStopTime(t_out);
    if (flag < 0) {
      return failed(RunStatus::SolverFailure,
                    stopTimeCall() + "(" + formatDouble(t_out) + ") returned " + flagName(flag));
    }
  }
  double t_reached = t_last_;
  int flag = call(t_out, one_step, t_reached);
  while (flag == rootReturn()) {  // an event inside the interval: fire it, go on
    if (rootReturned(k, t_reached)) {
      t_last_ = t_reached;
      out.end = SolveOutcome::End::EventStop;
      out.t = t_reached;
      return out;
    }
    // A root within round-off of t_out is the output: asking again for t_out would return the
    // same root (its exact zero at troot lies beyond tout's distance).
    if (!one_step && rootAtOutput(t_reached, t_out)) break;
    flag = call(t_out, one_step, t_reached);
  }
  if (flag < 0 && callbacks_.interrupted) {
    out.t = currentTime(t_reached);
    return failed(RunStatus::Interrupted, "");
  }
  if (flag < 0 && !callbacks_.events->failure.empty()) {
    return failed(RunStatus::ModelError, callbacks_.events->failure + " (" + solverName() +
                                             "'s root function, output interval " + std::to_string(k) + ")");
  }
  if (flag < 0) {
    const sundials::ErrorLog log{takeErrorLog(), ""};
    const double t_current = currentTime(t_reached);
    std::string message =
        sundials::solverFailureMessage(callName(), flagName(flag), t_current, lastStep(), t_out,
                                       {callbacks_.failure, callbacks_.failure_time}, log);
    RunStatus status = callbacks_.model_threw      ? RunStatus::ModelError
                       : callbacks_.failure.ok() ? RunStatus::SolverFailure
                                                 : RunStatus::KktFailure;
    if (callbacks_.failure.ok() && !callbacks_.projection_failure.empty()) {
      status = RunStatus::ProjectionFailure;
      message += "; last projection failure: " + callbacks_.projection_failure;
    }
    return failed(status, std::move(message));
  }
  t_last_ = t_reached;
  out.t = t_reached;
  return out;
}

Stabilization adaptiveLaw(const SimulationOptions& options) {
  return options.integrator == Integrator::IdaGgl ? Stabilization::none() : options.stabilization;
}

void noteAdaptiveSetup(const SimulationOptions& options, std::string& notes) {
  const bool ida = options.integrator == Integrator::IdaIndex1 || options.integrator == Integrator::IdaGgl;
  if (options.integrator == Integrator::IdaGgl && options.stabilization.kind != Stabilization::Kind::None) {
    notes += "ida_ggl ignores " + options.stabilization.describe() + ": GGL holds phi and phi_dot itself. ";
  }
  if (ida && options.stabilization.project_after_step) {
    notes += std::string(toString(options.integrator)) +
             " does not project after steps (IDA has no projection hook; ida_ggl holds phi itself). ";
  }
}

std::unique_ptr<AdaptiveSolver> makeAdaptiveSolver(const ConstrainedSystem& system, const SimulationOptions& options,
                                                   AccelerationFunction& f, const State& start, ConstVectorRef qdd,
                                                   ConstVectorRef lambda, RunRecorder& recorder,
                                                   SundialsEvents& events, Summary& summary) {
  if (options.integrator == Integrator::CvodeBdf || options.integrator == Integrator::CvodeAdams) {
    return makeCvodeSolver(system, options, f, start, recorder, events, summary);
  }
  return makeIdaSolver(system, options, f, start, qdd, lambda, recorder, events, summary);
}

}  // namespace kktdae::detail

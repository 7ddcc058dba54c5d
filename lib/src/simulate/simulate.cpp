#include "kktdae/simulate/simulate.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_steppers.hpp"

namespace kktdae {
namespace {

using StepFunction = KktResult (*)(AccelerationFunction&, State&, double, ConstVectorRef, StepWorkspace&);

StepFunction stepFunctionFor(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler: return &explicitEulerStep;
    case Integrator::SemiImplicitEuler: return &semiImplicitEulerStep;
    case Integrator::Rk4: return &rk4Step;
  }
  throwInvalid("integrator", "no fixed-step implementation");
}

std::string describeRows(const std::vector<int>& rows) {
  if (rows.empty()) return "";
  std::string text = "; offending constraint rows [";
  for (std::size_t i = 0; i < rows.size(); ++i) text += (i ? ", " : "") + std::to_string(rows[i]);
  return text + "]";
}

std::string firstNonFinite(const State& state) {
  for (Eigen::Index i = 0; i < state.q.size(); ++i) {
    if (!std::isfinite(state.q[i])) return "q[" + std::to_string(i) + "] = " + formatDouble(state.q[i]);
  }
  for (Eigen::Index i = 0; i < state.v.size(); ++i) {
    if (!std::isfinite(state.v[i])) return "v[" + std::to_string(i) + "] = " + formatDouble(state.v[i]);
  }
  return "";
}

/// Records the constraint violation of the state whose KKT terms the workspace now holds.
void trackViolation(const KktWorkspace& ws, const KktResult& kkt, Summary& summary) {
  summary.final_phi_inf = ws.nc > 0 ? ws.phi.lpNorm<Eigen::Infinity>() : 0.0;
  summary.final_phi_dot_inf = ws.nc > 0 ? ws.phi_dot.lpNorm<Eigen::Infinity>() : 0.0;
  summary.max_phi_inf = std::max(summary.max_phi_inf, summary.final_phi_inf);
  summary.max_phi_dot_inf = std::max(summary.max_phi_dot_inf, summary.final_phi_dot_inf);
  if (!std::isnan(kkt.rcond)) summary.min_rcond = std::min(summary.min_rcond, kkt.rcond);
}

}  // namespace

void SimulationOptions::validate() const {
  requirePositive("dt", dt);
  if (steps < 0) throwInvalid("steps", "must be >= 0, got " + std::to_string(steps));
  if (observe_every < 1) throwInvalid("observe_every", "must be >= 1, got " + std::to_string(observe_every));
  stabilization.validate();
  kkt.validate();
}

Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 const Observer& observer) {
  options.validate();
  checkStateSizes(system, initial.q, initial.v);
  requireFinite("initial.t", Eigen::Matrix<double, 1, 1>::Constant(initial.t));

  const auto started = std::chrono::steady_clock::now();
  Summary summary;
  summary.integrator = options.integrator;
  summary.form = options.kkt.form;
  summary.t_final = initial.t;

  AccelerationFunction f(system, options.stabilization, options.kkt, options.controller);
  StepWorkspace step_ws(system.nq());
  const StepFunction step = stepFunctionFor(options.integrator);
  State state = initial;
  Vector qdd = Vector::Zero(system.nq());

  auto finish = [&](RunStatus status, std::string message) {
    summary.status = status;
    summary.message = std::move(message);
    summary.kkt_solves = f.solves();
    summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (summary.ok()) {
      spdlog::debug("simulate {}: {}", system.name(), summary.briefReport());
    } else {
      spdlog::debug("simulate {} failed: {}", system.name(), summary.briefReport());
    }
    return summary;
  };
  auto kktFailure = [&](const KktResult& kkt, long step_index, double t, const char* where) {
    summary.failed_step = step_index;
    return finish(RunStatus::KktFailure,
                  std::string("KKT solve failed (") + toString(kkt.status) + ") at step " +
                      std::to_string(step_index) + ", t = " + formatDouble(t) + " s, " + where + ": " +
                      kkt.message + describeRows(kkt.offending_rows));
  };

  // q̈ and λ at the current state serve twice: the observer reports λ there, and every stepper's
  // first stage is that same q̈.
  KktResult kkt = f.evaluate(state.t, state.q, state.v, qdd);
  if (!kkt.ok()) return kktFailure(kkt, 0, state.t, "at the initial state");
  trackViolation(f.workspace(), kkt, summary);
  if (observer) observer(state.t, state.q, state.v, f.lambda());

  for (long k = 1; k <= options.steps; ++k) {
    const double t_before = state.t;
    kkt = step(f, state, options.dt, qdd, step_ws);
    if (!kkt.ok()) return kktFailure(kkt, k, t_before, "in an inner stage of the step");
    state.t = initial.t + static_cast<double>(k) * options.dt;
    if (!state.q.allFinite() || !state.v.allFinite()) {
      summary.failed_step = k;
      return finish(RunStatus::NonFiniteState, "non-finite state after step " + std::to_string(k) +
                                                   " (t = " + formatDouble(state.t) + " s): " +
                                                   firstNonFinite(state));
    }
    kkt = f.evaluate(state.t, state.q, state.v, qdd);
    if (!kkt.ok()) return kktFailure(kkt, k, state.t, "at the state the step reached");
    summary.steps = k;
    summary.t_final = state.t;
    trackViolation(f.workspace(), kkt, summary);
    if (observer && (k % options.observe_every == 0 || k == options.steps)) {
      observer(state.t, state.q, state.v, f.lambda());
    }
  }
  return finish(RunStatus::Success, "");
}

}  // namespace kktdae

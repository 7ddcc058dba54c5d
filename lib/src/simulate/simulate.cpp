#include "kktdae/simulate/simulate.hpp"

#include "kktdae/core/checks.hpp"
#include "run_recorder.hpp"

namespace kktdae {
namespace detail {

std::string describeRows(const std::vector<int>& rows) {
  if (rows.empty()) return "";
  std::string text = "; offending constraint rows [";
  for (std::size_t i = 0; i < rows.size(); ++i) text += (i ? ", " : "") + std::to_string(rows[i]);
  return text + "]";
}

void RunRecorder::noteRankDeficiency(const RankDeficiencyLog& log) {
  summary_.rank_deficient_solves = log.solves;
  summary_.min_constraint_rank = log.min_rank;
  if (log.solves == 0) return;
  std::string note = "rank-deficient KKT (" + std::string(toString(policy_)) + "): " + std::to_string(log.solves) +
                     " of " + std::to_string(acceleration_->solves()) + " solves; first at t = " +
                     formatDouble(log.first_time) + " s (rcond " + formatDouble(log.first_rcond);
  if (log.min_rank >= 0) note += ", lowest rank " + std::to_string(log.min_rank) + " of " + std::to_string(system_.nc());
  note += ")";
  if (!log.first_dependent_rows.empty()) {
    note += ", dependent rows [";
    for (std::size_t i = 0; i < log.first_dependent_rows.size(); ++i) {
      note += (i ? ", " : "") + std::to_string(log.first_dependent_rows[i]);
    }
    note += "]";
  }
  summary_.notes += note + ". ";
}

std::string firstNonFinite(ConstVectorRef q, ConstVectorRef v) {
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    if (!std::isfinite(q[i])) return "q[" + std::to_string(i) + "] = " + formatDouble(q[i]);
  }
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return "v[" + std::to_string(i) + "] = " + formatDouble(v[i]);
  }
  return "";
}

bool projectInitialState(const ConstrainedSystem& system, State& state, const SimulationOptions& options,
                         Summary& summary, std::string& failure, bool force) {
  if (!options.project_initial_state && !force) return true;
  ProjectionWorkspace projection_ws(system, options.kkt);
  const ProjectionReport report = projectToManifold(system, state, options.projection, projection_ws);
  if (!report.converged) {
    failure = "initial state cannot be made consistent: " + report.message;
    return false;
  }
  summary.notes += "initial projection: " + std::to_string(report.iterations) + " iterations, |dq| " +
                   formatDouble(report.position_correction) + ", |dv| " + formatDouble(report.velocity_correction) +
                   " (|phi| " + formatDouble(report.phi_before) + " -> " + formatDouble(report.phi_after) + "). ";
  spdlog::debug("{}: initial projection moved q by {} and v by {} in {} iterations", system.name(),
                report.position_correction, report.velocity_correction, report.iterations);
  return true;
}

}  // namespace detail

void SimulationOptions::validate() const {
  requirePositive("dt", dt);
  if (steps < 0) throwInvalid("steps", "must be >= 0, got " + std::to_string(steps));
  if (observe_every < 1) throwInvalid("observe_every", "must be >= 1, got " + std::to_string(observe_every));
  stabilization.validate();
  kkt.validate();
  projection.validate();
}

Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 const Observer& observer) {
  options.validate();
  checkStateSizes(system, initial.q, initial.v);
  requireFinite("initial.t", Eigen::Matrix<double, 1, 1>::Constant(initial.t));
  requireFinite("initial.q", initial.q);
  requireFinite("initial.v", initial.v);
  if (isAdaptive(options.integrator)) options.adaptive.validate(system.nq());
  if (options.integrator == Integrator::CvodeAdams && options.stabilization.project_after_step) {
    throwInvalid("stabilization.project_after_step",
                 "cvode_adams cannot project after steps: SUNDIALS projects with BDF methods only (use cvode_bdf)");
  }
  if (options.integrator == Integrator::IdaIndex1 && options.stabilization.kind == Stabilization::Kind::Soft) {
    throwInvalid("stabilization.kind", "soft constraints need the regularized solve; ida_index1 enforces its "
                                       "constraint row exactly (use a fixed-step integrator or CVODE)");
  }
  try {
    switch (options.integrator) {
      case Integrator::CvodeBdf:
      case Integrator::CvodeAdams:
        return detail::simulateCvode(system, initial, options, observer);
      case Integrator::IdaIndex1:
      case Integrator::IdaGgl:
        return detail::simulateIda(system, initial, options, observer);
      default:
        return detail::simulateFixedStep(system, initial, options, observer);
    }
  } catch (const std::invalid_argument&) {
    throw;  // a programming error in the call, reported as such
  } catch (const std::exception& error) {
    // Out of memory, or a model/observer that threw: the run ends with a status, not an exception.
    Summary summary;
    summary.integrator = options.integrator;
    summary.form = options.kkt.form;
    summary.t_final = initial.t;
    summary.status = RunStatus::SolverFailure;
    summary.message = std::string("run aborted by an exception: ") + error.what();
    return summary;
  }
}

}  // namespace kktdae

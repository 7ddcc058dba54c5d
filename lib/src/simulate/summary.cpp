#include "kktdae/simulate/summary.hpp"

#include <cstdio>

namespace kktdae {

std::string_view toString(RunStatus status) {
  switch (status) {
    case RunStatus::NotRun: return "not_run";
    case RunStatus::Success: return "success";
    case RunStatus::KktFailure: return "kkt_failure";
    case RunStatus::NonFiniteState: return "non_finite_state";
    case RunStatus::SolverFailure: return "solver_failure";
    case RunStatus::InitFailure: return "init_failure";
    case RunStatus::ProjectionFailure: return "projection_failure";
    case RunStatus::Diverged: return "diverged";
    case RunStatus::ModelError: return "model_error";
    case RunStatus::Interrupted: return "interrupted";
    case RunStatus::StoppedByEvent: return "stopped_by_event";
  }
  return "unknown";
}

std::string_view toString(WarningKind kind) {
  switch (kind) {
    case WarningKind::ViolationAboveThreshold: return "violation_above_threshold";
    case WarningKind::RankDeficientSolve: return "rank_deficient_solve";
    case WarningKind::ProjectionStalled: return "projection_stalled";
    case WarningKind::OffManifoldStart: return "off_manifold_start";
  }
  return "unknown";
}

long Summary::warningCount(WarningKind kind) const {
  for (const RunWarning& warning : warnings) {
    if (warning.kind == kind) return warning.count;
  }
  return 0;
}

std::string Summary::briefReport() const {
  char line[320];
  std::snprintf(line, sizeof line,
                "%s: %s/%s, %ld steps, %ld KKT solves, t=%.6g s, max|phi|=%.3e, max|phidot|=%.3e, "
                "min rcond=%.3e, %.3f ms",
                std::string(toString(status)).c_str(), std::string(toString(integrator)).c_str(),
                std::string(toString(form)).c_str(), steps, kkt_solves, t_final, max_phi_inf,
                max_phi_dot_inf, min_rcond, 1e3 * wall_seconds);
  std::string report(line);
  for (const RunWarning& warning : warnings) {
    report += ", " + std::to_string(warning.count) + " x " + std::string(toString(warning.kind));
  }
  if (!events.empty()) report += ", " + std::to_string(events.size()) + " events";
  if (!ok() && !message.empty()) report += " — " + message;
  return report;
}

}  // namespace kktdae

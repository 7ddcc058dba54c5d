#include "kktdae/simulate/summary.hpp"

#include <cstdio>

namespace kktdae {

const char* toString(RunStatus status) {
  switch (status) {
    case RunStatus::NotRun: return "not_run";
    case RunStatus::Success: return "success";
    case RunStatus::KktFailure: return "kkt_failure";
    case RunStatus::NonFiniteState: return "non_finite_state";
    case RunStatus::SolverFailure: return "solver_failure";
    case RunStatus::InitFailure: return "init_failure";
    case RunStatus::ProjectionFailure: return "projection_failure";
  }
  return "unknown";
}

std::string Summary::briefReport() const {
  char line[320];
  std::snprintf(line, sizeof line,
                "%s: %s/%s, %ld steps, %ld KKT solves, t=%.6g s, max|phi|=%.3e, max|phidot|=%.3e, "
                "min rcond=%.3e, %.3f ms",
                toString(status), std::string(toString(integrator)).c_str(),
                std::string(toString(form)).c_str(), steps, kkt_solves, t_final, max_phi_inf,
                max_phi_dot_inf, min_rcond, 1e3 * wall_seconds);
  std::string report(line);
  if (rank_deficient_solves > 0) report += ", " + std::to_string(rank_deficient_solves) + " rank-deficient solves";
  if (!ok() && !message.empty()) report += " — " + message;
  return report;
}

}  // namespace kktdae

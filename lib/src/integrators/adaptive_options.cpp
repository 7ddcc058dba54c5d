#include "kktdae/integrators/adaptive_options.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae {

std::string_view toString(NewtonLinearSolver solver) {
  switch (solver) {
    case NewtonLinearSolver::Auto: return "auto";
    case NewtonLinearSolver::Dense: return "dense";
    case NewtonLinearSolver::Sparse: return "sparse";
    case NewtonLinearSolver::Krylov: return "krylov";
  }
  return "unknown";
}

std::string_view toString(NewtonMatrix matrix) {
  switch (matrix) {
    case NewtonMatrix::Analytic: return "analytic";
    case NewtonMatrix::DifferenceQuotient: return "difference_quotient";
  }
  return "unknown";
}

void AdaptiveOptions::validate(int nq) const {
  if (toString(newton_matrix) == "unknown") {
    throwInvalid("adaptive.newton_matrix",
                 "is not a NewtonMatrix value (" + std::to_string(static_cast<int>(newton_matrix)) + ")");
  }
  if (toString(linear_solver) == "unknown") {
    throwInvalid("adaptive.linear_solver",
                 "is not a NewtonLinearSolver value (" + std::to_string(static_cast<int>(linear_solver)) + ")");
  }
  requirePositive("adaptive.rtol", rtol);
  requirePositive("adaptive.atol", atol);
  if (atol_per_component.size() > 0) {
    requireSize("adaptive.atol_per_component", atol_per_component.size(), 2 * nq);
    for (Eigen::Index i = 0; i < atol_per_component.size(); ++i) {
      requirePositive(("adaptive.atol_per_component[" + std::to_string(i) + "]").c_str(), atol_per_component[i]);
    }
  }
  requirePositive("adaptive.ggl_multiplier_atol", ggl_multiplier_atol);
  requireNonNegative("adaptive.max_step", max_step);
  requireNonNegative("adaptive.initial_step", initial_step);
  if (krylov_dimension < 1) {
    throwInvalid("adaptive.krylov_dimension", "must be >= 1, got " + std::to_string(krylov_dimension));
  }
  if (max_steps < 1) throwInvalid("adaptive.max_steps", "must be >= 1, got " + std::to_string(max_steps));
}

}  // namespace kktdae

#include <string>

#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/generalized_alpha_options.hpp"

namespace kktdae {

void GeneralizedAlphaOptions::validate() const {
  if (!(rho_inf >= 0.0 && rho_inf <= 1.0)) {
    throwInvalid("generalized_alpha.rho_inf", "must be in [0, 1], got " + formatDouble(rho_inf));
  }
  if (!(hht_alpha >= -1.0 / 3.0 && hht_alpha <= 0.0)) {
    throwInvalid("generalized_alpha.hht_alpha", "must be in [-1/3, 0], got " + formatDouble(hht_alpha));
  }
  requirePositive("generalized_alpha.newton_tolerance", newton_tolerance);
  if (newton_max_iterations < 1) {
    throwInvalid("generalized_alpha.newton_max_iterations",
                 "must be >= 1, got " + std::to_string(newton_max_iterations));
  }
  if (!(slow_convergence_ratio > 0.0 && slow_convergence_ratio < 1.0)) {
    throwInvalid("generalized_alpha.slow_convergence_ratio",
                 "must be in (0, 1), got " + formatDouble(slow_convergence_ratio));
  }
  if (max_step_halvings < 0 || max_step_halvings > 30) {
    throwInvalid("generalized_alpha.max_step_halvings",
                 "must be in [0, 30], got " + std::to_string(max_step_halvings));
  }
  if (jacobian_reuse != JacobianReuse::EveryIteration && jacobian_reuse != JacobianReuse::EveryStep &&
      jacobian_reuse != JacobianReuse::UntilSlow) {
    throwInvalid("generalized_alpha.jacobian_reuse",
                 "unknown value " + std::to_string(static_cast<int>(jacobian_reuse)));
  }
  if (iteration_matrix != IterationMatrix::Auto && iteration_matrix != IterationMatrix::Dense &&
      iteration_matrix != IterationMatrix::Sparse) {
    throwInvalid("generalized_alpha.iteration_matrix",
                 "unknown value " + std::to_string(static_cast<int>(iteration_matrix)));
  }
}

std::string_view toString(JacobianReuse reuse) {
  switch (reuse) {
    case JacobianReuse::EveryIteration: return "every_iteration";
    case JacobianReuse::EveryStep: return "every_step";
    case JacobianReuse::UntilSlow: return "until_slow";
  }
  return "unknown";
}

std::string_view toString(IterationMatrix matrix) {
  switch (matrix) {
    case IterationMatrix::Auto: return "auto";
    case IterationMatrix::Dense: return "dense";
    case IterationMatrix::Sparse: return "sparse";
  }
  return "unknown";
}

GeneralizedAlphaParameters chungHulbertParameters(double rho_inf) {
  if (!(rho_inf >= 0.0 && rho_inf <= 1.0)) {
    throwInvalid("rho_inf", "must be in [0, 1], got " + formatDouble(rho_inf));
  }
  GeneralizedAlphaParameters p;
  p.alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0);
  p.alpha_f = rho_inf / (rho_inf + 1.0);
  p.gamma = 0.5 + p.alpha_f - p.alpha_m;
  p.beta = 0.25 * (p.gamma + 0.5) * (p.gamma + 0.5);
  return p;
}

GeneralizedAlphaParameters hhtParameters(double alpha) {
  if (!(alpha >= -1.0 / 3.0 && alpha <= 0.0)) {
    throwInvalid("hht_alpha", "must be in [-1/3, 0], got " + formatDouble(alpha));
  }
  GeneralizedAlphaParameters p;
  p.alpha_m = 0.0;
  p.alpha_f = -alpha;
  p.gamma = 0.5 - alpha;
  p.beta = 0.25 * (1.0 - alpha) * (1.0 - alpha);
  return p;
}

}  // namespace kktdae

#include "kktdae/integrators/adaptive_options.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae {

void AdaptiveOptions::validate(int nq) const {
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
  if (max_steps < 1) throwInvalid("adaptive.max_steps", "must be >= 1, got " + std::to_string(max_steps));
}

}  // namespace kktdae

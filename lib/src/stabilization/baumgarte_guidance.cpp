#include "kktdae/stabilization/baumgarte_guidance.hpp"

#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

#include <algorithm>
#include <cstdio>

namespace kktdae {
namespace {
std::string fourDigits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}
}  // namespace

void BaumgarteGuidanceOptions::validate() const {
  requireNonNegative("zeta", zeta);
  if (!(safety >= 0.0 && safety < 1.0)) throwInvalid("safety", "must be in [0, 1), got " + formatDouble(safety));
}

BaumgarteRecommendation recommendBaumgarte(Integrator integrator, double dt, const BaumgarteGuidanceOptions& options) {
  requirePositive("dt", dt);
  options.validate();
  if (isAdaptive(integrator)) {
    throwInvalid("integrator", std::string(toString(integrator)) +
                                   " chooses its own steps: pick gains from the physics (docs/baumgarte.md)");
  }
  if (integrator == Integrator::Rattle) {
    throwInvalid("integrator", "rattle uses no Baumgarte gain: every step solves phi = 0 and J qdot = 0 itself "
                               "(docs/integrators.md, RATTLE)");
  }
  if (integrator == Integrator::GeneralizedAlpha || integrator == Integrator::Hht) {
    throwInvalid("integrator", std::string(toString(integrator)) +
                                   " uses no Baumgarte gain: every step solves phi = 0 itself "
                                   "(docs/integrators.md, generalized-alpha)");
  }
  BaumgarteRecommendation r;
  r.dt_omega_limit = baumgarteStabilityLimit(integrator, options.zeta);
  if (!(r.dt_omega_limit > 0.0)) {
    throwInvalid("zeta", "explicit Euler has no stable Baumgarte gain without damping (zeta = 0)");
  }
  if (integrator == Integrator::Rk4) {
    r.dt_omega = options.safety > 0.0 ? options.safety * r.dt_omega_limit : std::min(0.1, 0.5 * r.dt_omega_limit);
    r.reasoning = "rk4 drifts only O(dt^4): a gentle correction (dt*omega = " + fourDigits(r.dt_omega) +
                  ", limit " + fourDigits(r.dt_omega_limit) + ") removes it without adding stiffness error";
  } else {
    const double safety = options.safety > 0.0 ? options.safety : 0.5;
    r.dt_omega = safety * r.dt_omega_limit;
    r.reasoning = std::string(toString(integrator)) + " drifts O(dt) per step: the strongest correction that stays " +
                  "stable, " + fourDigits(safety) + " of the limit dt*omega = " + fourDigits(r.dt_omega_limit);
  }
  r.omega = r.dt_omega / dt;
  r.stabilization = Stabilization::fromDampingRatio(options.zeta, r.omega);
  return r;
}

}  // namespace kktdae

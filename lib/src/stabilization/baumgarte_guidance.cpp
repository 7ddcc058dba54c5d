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
  requireNonNegative("motion_rate", motion_rate);
  requireNonNegative("mean_step", mean_step);
  requireNonNegative("horizon", horizon);
  requireNonNegative("measured_limit", measured_limit);
}

double adaptiveStiffnessCap(Integrator integrator) {
  if (integrator == Integrator::IdaIndex1) return 3.0;
  if (integrator == Integrator::CvodeBdf || integrator == Integrator::CvodeAdams) return 0.3;
  throwInvalid("integrator", std::string(toString(integrator)) + " is not an adaptive integrator with Baumgarte terms");
}

namespace {

BaumgarteRecommendation recommendAdaptive(Integrator integrator, const BaumgarteGuidanceOptions& options) {
  if (integrator == Integrator::IdaGgl) {
    throwInvalid("integrator", "ida_ggl uses no Baumgarte gain: GGL holds phi = 0 and phi_dot = 0 itself");
  }
  BaumgarteRecommendation r;
  const std::string name(toString(integrator));
  if (integrator == Integrator::IdaIndex1 && options.mean_step > 0.0) {
    // The Baumgarte row is solved at the new time: the work stays flat while omega*h < 1 and the
    // drift keeps falling with omega. How much of that knee pays grows with the drift's share of
    // the error, which grows with the radians the motion turns over the run (§9).
    if (options.horizon > 0.0 && options.motion_rate > 0.0) {
      const double radians = options.motion_rate * options.horizon;
      const double cap = adaptiveStiffnessCap(integrator);
      r.dt_omega = std::min(kIdaIndex1OmegaStepPerRadian * radians, cap);
      r.reasoning = name + " solves the Baumgarte row implicitly: omega * mean step = " +
                    fourDigits(kIdaIndex1OmegaStepPerRadian) + " per radian of motion over the run (" +
                    fourDigits(radians) + " rad)" +
                    (r.dt_omega == cap ? ", capped at " + fourDigits(cap) : std::string()) + ", mean step " +
                    fourDigits(options.mean_step) + " s";
    } else {
      r.dt_omega = kIdaIndex1OmegaStep;
      r.reasoning = name + " solves the Baumgarte row implicitly: omega = " + fourDigits(kIdaIndex1OmegaStep) +
                    " / mean step " + fourDigits(options.mean_step) +
                    " s, the largest gain before the error test starts paying for the mode -omega" +
                    " (horizon or motion rate unknown)";
    }
    r.omega = r.dt_omega / options.mean_step;
    r.stabilization = Stabilization::fromDampingRatio(options.zeta, r.omega);
    return r;
  }
  if (!(options.motion_rate > 0.0)) {
    throwInvalid("motion_rate", name + " chooses its own steps: the gain follows the motion's rate Omega" +
                                    (integrator == Integrator::IdaIndex1 ? " (or, better, 1 / mean_step)" : "") +
                                    ", which must be > 0 (measureMotionTimeScale), got " +
                                    formatDouble(options.motion_rate));
  }
  r.omega = options.motion_rate;
  r.reasoning = name + " chooses its own steps: omega = the motion's rate " + fourDigits(options.motion_rate) +
                " rad/s removes the drift as fast as the motion makes error";
  if (integrator == Integrator::IdaIndex1) {
    r.reasoning += " (mean step unknown: 1 / mean step would be better, docs/baumgarte.md section 9)";
  }
  if (options.mean_step > 0.0) {
    const double cap = adaptiveStiffnessCap(integrator) / options.mean_step;
    if (cap < r.omega) {
      r.omega = cap;
      r.reasoning += ", capped at " + fourDigits(adaptiveStiffnessCap(integrator)) + " / mean step " +
                     fourDigits(options.mean_step) + " s so the feedback adds no stiffness the steps must resolve";
    }
    r.dt_omega = r.omega * options.mean_step;
  }
  r.stabilization = Stabilization::fromDampingRatio(options.zeta, r.omega);
  return r;
}

}  // namespace

BaumgarteRecommendation recommendBaumgarte(Integrator integrator, double dt, const BaumgarteGuidanceOptions& options) {
  options.validate();
  if (isAdaptive(integrator)) return recommendAdaptive(integrator, options);
  requirePositive("dt", dt);
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
  r.dt_omega_limit =
      options.measured_limit > 0.0 ? options.measured_limit : baumgarteStabilityLimit(integrator, options.zeta);
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
  if (options.measured_limit > 0.0) r.reasoning += " (measured on the model)";
  r.omega = r.dt_omega / dt;
  r.stabilization = Stabilization::fromDampingRatio(options.zeta, r.omega);
  return r;
}

}  // namespace kktdae

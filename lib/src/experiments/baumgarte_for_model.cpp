#include "kktdae/experiments/baumgarte_for_model.hpp"

#include <spdlog/spdlog.h>

#include <Eigen/QR>

#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae {

void ModelGuidanceOptions::validate() const {
  guidance.validate();
  requirePositive("horizon", horizon);
  requirePositive("tolerance", tolerance);
  if (min_steps < 1) throwInvalid("min_steps", "must be >= 1, got " + std::to_string(min_steps));
  requirePositive("offset", offset);
  if (adaptive_mode != AdaptiveGainMode::Rule && adaptive_mode != AdaptiveGainMode::Scan) {
    throwInvalid("adaptive_mode", "is not rule or scan (" + std::to_string(static_cast<int>(adaptive_mode)) + ")");
  }
  tuner.validate();
}

ModelGuidance recommendBaumgarteForModel(const ConstrainedSystem& system, const State& start, Integrator integrator,
                                         double dt, const ModelGuidanceOptions& options) {
  options.validate();
  ModelGuidance out;
  BaumgarteGuidanceOptions guidance = options.guidance;
  guidance.motion_rate = 0.0;
  guidance.mean_step = 0.0;
  guidance.measured_limit = 0.0;
  if (isAdaptive(integrator)) {
    if (integrator == Integrator::IdaGgl) return {recommendBaumgarte(integrator, dt, guidance), {}, {}, {}};
    out.time_scale =
        measureMotionTimeScale(system, start, start.t + options.horizon, integrator, options.tolerance);
    guidance.motion_rate = out.time_scale.motion_rate;
    if (out.time_scale.summary.ok()) guidance.mean_step = out.time_scale.mean_step;
    // ida_index1's gain depends on the length of the run it is for; unless the caller says
    // otherwise, that is the run measured.
    if (!(guidance.horizon > 0.0)) guidance.horizon = options.horizon;
    out.recommendation = recommendBaumgarte(integrator, dt, guidance);
    if (options.adaptive_mode == AdaptiveGainMode::Scan) {
      out.tuning = tuneAdaptiveGain(system, start, integrator, options.tolerance, options.horizon, guidance.zeta,
                                    out.time_scale, options.tuner);
      out.tuning.rule_omega = out.recommendation.omega;
      if (out.tuning.used) {
        BaumgarteRecommendation& r = out.recommendation;
        r.omega = out.tuning.omega;
        r.stabilization = Stabilization::fromDampingRatio(guidance.zeta, r.omega);
        r.dt_omega = guidance.mean_step * r.omega;  // as the rule reports it: dt = the mean step
        r.reasoning = "measured on the model: " + out.tuning.message + " (the rule gave omega = " +
                      formatDouble(out.tuning.rule_omega) + ")";
      } else {
        out.recommendation.reasoning += " (the scan gave no gain: " + out.tuning.message + ")";
      }
    }
    return out;
  }
  if (options.measure_limit && integrator != Integrator::Rattle) {
    requirePositive("dt", dt);
    // The bisection classifies the error's decay from e0, so it needs a start off the manifold.
    State off = start;
    Matrix J(system.nc(), system.nq());
    system.constraintJacobian(start.q, start.t, J);
    off.q += J.completeOrthogonalDecomposition().solve(Vector::Constant(system.nc(), options.offset));
    StabilityBisectionOptions bisection;
    bisection.integrator = integrator;
    bisection.dt = dt;
    bisection.zeta = guidance.zeta;
    bisection.horizon = options.horizon;
    bisection.min_steps = options.min_steps;
    out.limit = bisectStabilityLimit(system, off, bisection);
    if (out.limit.found) guidance.measured_limit = out.limit.limit;
    spdlog::debug("recommendBaumgarteForModel: measured limit {} ({} runs){}", out.limit.limit, out.limit.runs,
                  out.limit.found ? "" : ": " + out.limit.message);
  }
  out.recommendation = recommendBaumgarte(integrator, dt, guidance);
  return out;
}

}  // namespace kktdae

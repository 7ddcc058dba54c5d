#pragma once
/// @file
/// Picking α and β for a fixed-step integrator and step size, as code.

#include <string>

#include "kktdae/integrators/integrator.hpp"
#include "kktdae/stabilization/stabilization.hpp"

namespace kktdae {

/// What recommendBaumgarte() knows about the run besides the integrator and step: the damping
/// ratio, the safety factor and, for adaptive integrators, the motion's measured scales.
struct BaumgarteGuidanceOptions {
  /// Damping ratio ζ ≥ 0 of the error dynamics; 1 (critical) decays fastest without overshoot.
  double zeta = 1.0;
  /// Fraction of the discrete stability limit to use, in (0, 1); 0 picks the integrator's default
  /// (see recommendBaumgarte).
  double safety = 0.0;
  /// Adaptive integrators only (required > 0 for them, except ida_index1 given mean_step): the
  /// motion's own rate Ω [rad/s], how fast it turns its velocity — measureMotionTimeScale()
  /// measures it from one run without feedback (experiments/adaptive_gain.hpp); for a pendulum,
  /// its frequency.
  double motion_rate = 0.0;
  /// Adaptive integrators only: the mean step [s] the error test takes without feedback at the
  /// run's tolerance (measureMotionTimeScale()); 0 = unknown. For CVODE it caps ω below
  /// stiffness_cap / mean_step; for ida_index1 it sets ω = kIdaIndex1OmegaStep / mean_step. Either
  /// way a tighter tolerance (smaller steps) never lowers ω.
  double mean_step = 0.0;
  /// Adaptive integrators only: the length [s] of the run the gain is for (t_end − t0); 0 =
  /// unknown. ida_index1 given it, motion_rate and mean_step takes ω·h̄ =
  /// kIdaIndex1OmegaStepPerRadian · Ω · horizon (the radians the motion turns over the run):
  /// the longer the run in the motion's own time, the larger the drift's share of the error and
  /// the more of the step's knee 1/h̄ the gain is worth. Without it, ω = kIdaIndex1OmegaStep / h̄.
  double horizon = 0.0;
  /// Fixed-step integrators only: a measured stability limit of dt·ω for the user's model at this
  /// dt (recommendBaumgarteForModel() bisects one); 0 uses the closed form of the linear model.
  double measured_limit = 0.0;
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The ω·h above which an adaptive integrator's work starts to grow with ω (measured on five
/// models, docs/notes/baumgarte-adaptive-gains.md): recommendBaumgarte caps ω at this over the mean step.
/// cvode_bdf (and cvode_adams) integrate the stiff mode −ω and pay for it from ω·h ≈ 0.3 (+10 %
/// work, ×2–5 at 1); ida_index1 solves the Baumgarte row implicitly and pays from ω·h ≈ 1–3
/// (×1.4–11.5 at 3), its error test failing nearly every step from 2.5–37 (×10 and more; the
/// Newton convergence failures mostly stay flat). ida_index1's own gain lies below its cap on
/// runs shorter than 3 / kIdaIndex1OmegaStepPerRadian ≈ 160 radians of motion (Ω·T); the cap
/// binds on longer ones and on the Ω fallback. Throws std::invalid_argument for integrators
/// without an adaptive Baumgarte gain.
double adaptiveStiffnessCap(Integrator integrator);

/// ω·h̄ of ida_index1's gain when the run's horizon is unknown, h̄ its mean step without
/// feedback at the run's tolerance: ω = 1/h̄, the knee of its work. Its Baumgarte row is solved
/// at the new time, so the work stays flat up to ω·h̄ ≈ 1 while the drift keeps falling with ω;
/// from there the error test pays for the mode −ω (double pendulum at 1e-7, against ω = 0.1:
/// work +43 % at ω·h̄ = 2.1, ×2.4 at 6.6, ×180 at 21, where nearly every step fails the error
/// test). Measured with an ensemble of 7 (docs/notes/baumgarte-adaptive-gains.md): within a factor 2 of the band of
/// near-best gains on 10 of 15 model × tolerance cases in sample and 8 of 10 out of sample.
inline constexpr double kIdaIndex1OmegaStep = 1.0;

/// ida_index1's ω·h̄ per radian the motion turns over the run, Ω · horizon: ω =
/// min(kIdaIndex1OmegaStepPerRadian · Ω · T, adaptiveStiffnessCap) / h̄. Without feedback the
/// drift grows like T² and the tangential error like T, so the drift's share of the path error —
/// what a gain below the knee 1/h̄ still buys — grows with Ω·T; how much of the knee pays was
/// chosen on one measurement (docs/notes/baumgarte-adaptive-gains.md: the ensemble of 7 at 1e-5, 1e-7 and 1e-10;
/// 0.0165–0.021 put all 15 cases within a factor 2 of the band) and then counted, unchanged, at
/// 1e-6 and 1e-9 (10 of 10). At four other horizons it put 6 of 8 within ×2, as 1/h̄ did: the
/// dependence on T rests on five models and is not confirmed (§9).
inline constexpr double kIdaIndex1OmegaStepPerRadian = 0.019;

/// The gain recommendBaumgarte() picked, as a Stabilization, with the reasoning behind it.
struct BaumgarteRecommendation {
  Stabilization stabilization;  ///< α = ζ ω, β = ω
  double omega = 0.0;           ///< ω [rad/s]
  double dt_omega = 0.0;        ///< dt · ω used
  double dt_omega_limit = 0.0;  ///< the limit used: measured_limit if given, else baumgarteStabilityLimit(integrator, ζ); 0 for adaptive
  std::string reasoning;        ///< one sentence a user can read
};

/// Recommends Baumgarte gains for `integrator` at step `dt` (docs/baumgarte.md measures why):
/// - first-order integrators (euler, semi_implicit) create O(dt) drift every step, and stronger
///   feedback removes more of it right up to the stability limit, so ω = safety · limit / dt with
///   safety 0.5 (measured: the double pendulum's worst link error falls from 2.3e-2 at ω = 20 to
///   6.9e-3 at ω = 82.8, its energy drift from 0.32 to 0.087; a nonlinear model's own limit sat
///   within 3 % of the linear one for semi-implicit Euler);
/// - RK4's drift is O(dt⁴) and a stiff correction adds more truncation error than it removes,
///   so ω = 0.1 / dt (dt·ω = 0.1, or half the limit if that is smaller, as for strongly over-damped
///   ζ; measured: worst link error 4.5e-7 at ω = 20 vs 2e-4 at ω = 280).
/// - adaptive integrators with Baumgarte terms take their own steps, so no discrete limit
///   applies (dt·ω is reported with dt = mean_step, 0 if unknown). cvode_bdf and cvode_adams
///   integrate the stabilized ODE: the gain should remove the drift about as fast as the motion
///   creates error along the manifold, ω = Ω (options.motion_rate), and no faster than the step
///   the error test allows, ω ≤ adaptiveStiffnessCap / mean_step (measured on the error over the
///   whole output path per model call with an ensemble of 7 per gain: ω = Ω falls within a
///   factor 2 of the band of gains within 0.1 digits of the smoothed best on 14 of 15 model ×
///   tolerance cases for cvode_bdf and 9 of 10 at other tolerances; on 10 of 15 and 8 of 10 for
///   cvode_adams). ida_index1 solves the
///   Baumgarte row implicitly, pays for ω only from ω·h̄ ≈ 1 on, and wants
///   ω = min(kIdaIndex1OmegaStepPerRadian · Ω · horizon, adaptiveStiffnessCap) / mean_step;
///   without a horizon (or Ω) ω = kIdaIndex1OmegaStep / mean_step, without a mean step Ω
///   (docs/notes/baumgarte-adaptive-gains.md).
/// For fixed-step integrators a measured_limit replaces the closed-form limit the safety factor
/// applies to. Throws std::invalid_argument for ida_ggl and rattle (which use no gain), an
/// adaptive integrator without what it needs, dt ≤ 0 (fixed-step) or invalid options; for explicit
/// Euler with ζ = 0 (no stable gain exists). An adaptive integrator needs motion_rate > 0, except
/// ida_index1 given mean_step > 0. A negative motion_rate, mean_step or horizon throws.
BaumgarteRecommendation recommendBaumgarte(Integrator integrator, double dt,
                                           const BaumgarteGuidanceOptions& options = {});

}  // namespace kktdae

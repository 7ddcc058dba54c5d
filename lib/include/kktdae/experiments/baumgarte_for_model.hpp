#pragma once
/// @file
/// recommendBaumgarte() fed from the user's own model: one short run measures what the closed
/// forms cannot know — the motion's rate and the error test's step for an adaptive integrator,
/// or the real stability limit of dt·ω for a fixed-step one (docs/baumgarte.md §4, §9).

#include "kktdae/experiments/adaptive_gain.hpp"
#include "kktdae/experiments/adaptive_gain_tuner.hpp"
#include "kktdae/experiments/stability_bisection.hpp"
#include "kktdae/stabilization/baumgarte_guidance.hpp"

namespace kktdae {

/// What recommendBaumgarteForModel() measures on the model and how: the guidance options, the
/// measuring run, and for adaptive integrators the rule or a scan.
struct ModelGuidanceOptions {
  /// ζ and safety as for recommendBaumgarte(); motion_rate, mean_step and measured_limit are
  /// filled in from the measurement (a value given here is overwritten). guidance.horizon, the
  /// length of the run the gain is for (ida_index1's rule uses it), defaults to `horizon` when 0:
  /// give the real run's length when the measuring run is shorter.
  BaumgarteGuidanceOptions guidance;
  double horizon = 2.0;      ///< length of the measuring run(s) [s] from the start
  /// Adaptive: rtol = atol of the measuring run; give the run's own, since the mean step (the
  /// stiffness cap) depends on it.
  double tolerance = 1e-6;
  /// Fixed-step: bisect the real stability limit of dt·ω on this model (about a dozen runs of
  /// max(horizon, min_steps·dt)) and take the safety factor from it; false uses the closed form.
  bool measure_limit = true;
  long min_steps = 400;      ///< fixed-step: each bisection run has at least this many steps
  /// Fixed-step: the bisection runs start this far off the manifold in every constraint (φ's
  /// units), moved from the given start by the minimum-norm δq with J δq = offset.
  double offset = 2e-2;
  /// Adaptive (cvode_bdf, cvode_adams, ida_index1): Rule takes the closed form from the
  /// measuring run; Scan also scans ω on the model over `horizon` (tuneAdaptiveGain(): a coarse
  /// scan and a finer one, a few hundred runs; its cost is measured in docs/notes/baumgarte-adaptive-gains.md,
  /// "Measured gains") and recommends the middle of its band of near-best gains — for a model or
  /// tolerance the rule's assumptions may not fit (§9's misses).
  /// Fixed-step integrators ignore it (measure_limit is theirs).
  AdaptiveGainMode adaptive_mode = AdaptiveGainMode::Rule;
  AdaptiveGainTunerOptions tuner;  ///< Scan: the grid, ensemble, smoothing and band
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The recommendation for the user's model, with what was measured to reach it.
struct ModelGuidance {
  BaumgarteRecommendation recommendation;  ///< the gain, as recommendBaumgarte() gives it
  MotionTimeScale time_scale;   ///< adaptive integrators: what was measured
  StabilityBisection limit;     ///< fixed-step with measure_limit: the bisection (found, runs, bracket)
  /// AdaptiveGainMode::Scan: what the scan measured. When tuning.used is false the
  /// recommendation is the rule's and tuning.message (also in the reasoning) says why.
  AdaptiveGainTuning tuning;
};

/// Measures what recommendBaumgarte() needs for `integrator` on `system` from `start` (on or off
/// the manifold; Scan mode scores against ida_ggl from it, so give a consistent one) and returns
/// its recommendation. For a fixed-step integrator whose bisection finds
/// no limit in its bracket, the closed form is used and limit.message says why. Throws
/// std::invalid_argument as recommendBaumgarte() does, for invalid options, and for an adaptive
/// model at rest over the whole run.
ModelGuidance recommendBaumgarteForModel(const ConstrainedSystem& system, const State& start, Integrator integrator,
                                         double dt, const ModelGuidanceOptions& options = {});

}  // namespace kktdae

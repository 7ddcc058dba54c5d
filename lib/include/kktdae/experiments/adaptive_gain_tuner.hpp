#pragma once
/// @file
/// The Baumgarte gain of an adaptive integrator measured on the user's own model: a coarse scan of
/// ω around the closed-form rule's candidates (Ω and 1/h̄), scored as the full measurement of
/// docs/notes/baumgarte-adaptive-gains.md scores it (the whole output path against a tight ida_ggl reference, per
/// model call), then a finer scan with the full measurement's statistics over the coarse gains
/// that could be the best, and the middle of its band of near-best gains.
/// recommendBaumgarteForModel() runs it in AdaptiveGainMode::Scan.

#include <string>

#include "kktdae/experiments/adaptive_gain.hpp"

namespace kktdae {

/// How recommendBaumgarteForModel() picks an adaptive integrator's gain.
enum class AdaptiveGainMode {
  /// The closed form from one measuring run: ω = min(Ω, 0.3/h̄) for CVODE, 1/h̄ for ida_index1.
  Rule,
  /// The rule's run, then scans of ω on the model itself (tuneAdaptiveGain()): a few hundred runs
  /// (some tens without the refinement).
  Scan,
};

/// "rule" or "scan".
const char* toString(AdaptiveGainMode mode);

/// What the scans run. The coarse scan uses the full measurement's choices (§9) at half its density and
/// ensemble; the refinement uses them in full.
struct AdaptiveGainTunerOptions {
  /// Gains per decade (≥ 1). Four: the target's factor 2 is 0.3 decades, so a quarter-decade grid
  /// can place a gain within it, at half the full scan's eight per decade (half its runs).
  int per_decade = 4;
  /// Offset of the grid in grid steps, in [0, 1): the gains are 10^((k + grid_offset)/per_decade).
  /// kktdae-errdyn uses 0.25 so that no gain of the tuner coincides with the full scan's.
  double grid_offset = 0.0;
  /// The grid spans [low_factor · min(Ω, 1/h̄), high_factor · max(Ω, 1/h̄)] (0 < low_factor <
  /// high_factor). 40 of the 45 bands of §9's table lie inside that span and the other five
  /// overlap it: two car-axis ida_index1 bands reach past 3/h̄ (the extension below covers them),
  /// three flat cvode_bdf curves (the circle at 1e-10, the car axis at 1e-7 and 1e-10) are
  /// near-best down to the full grid's 0.1. Above 3/h̄ ida_index1 pays ×1.4–11.5 the work.
  ///@{
  double low_factor = 0.1;
  double high_factor = 3.0;
  ///@}
  /// Past the grid's top the scan goes on (AdaptiveGainOptions::extend_max_omega) up to
  /// extend_factor × the top (≥ 1; 1 = none) while the top run's work stays below
  /// extend_work_factor × that of ω = 0 (> 1): where the work is still flat the best can lie above.
  /// 3 rather than the full scan's 10, for cost: in the 75 full scans of §9's "Measured gains" the
  /// work inside the band is at most ×3.4 that of ω = 0 (the circle, cvode_adams at 1e-10), and
  /// the extension only starts above 3·max(Ω, 1/h̄).
  ///@{
  double extend_factor = 100.0;
  double extend_work_factor = 3.0;
  ///@}
  /// Runs per grid point at τ·10^(±ensemble_step k) (odd, ≥ 1): one run's score scatters by
  /// 0.05–0.4 digits, as much as the band is wide (§9); the mean of 3 lowers that by about √3.
  int ensemble_size = 3;
  double ensemble_step = 0.05;  ///< > 0
  /// Neighbours on each side averaged into the smoothed curve (≥ 0): 1 at four per decade is the
  /// full scan's ± a quarter decade.
  int smoothing_half_width = 1;
  double band_tolerance = 0.1;  ///< digits below the smoothed best that still count as near-best (> 0)
  long outputs = 100;           ///< equally spaced outputs the path is scored at (≥ 1)
  /// rtol = atol of the ida_ggl reference; 0 = min(1e-12, 1e-3 τ), at least 1e-14, and where
  /// ida_ggl fails there once more 10× looser (Andrews' squeezer fails at 1e-13 over 0.03 s).
  double reference_tolerance = 0.0;
  /// Coordinates of q scored (the first ones; 0 = all), e.g. a test-set problem's position part.
  Eigen::Index scored_components = 0;
  /// Each run's step cap per output interval (SUNDIALS' mxstep): this × the measuring run's mean steps
  /// per interval, at least 50 (≥ 1). Past ida_index1's cliff a run takes ×100 the steps: it ends it.
  long max_steps_factor = 20;
  /// A second, finer scan around what the first found, at this many gains per decade (0 = none):
  /// the coarse scan says where the near-best gains are, but its ensemble of 3 and one neighbour
  /// of smoothing leave its band about as noisy as the band is wide. The refinement runs the full
  /// measurement's statistics (eight per decade, an ensemble of 7, ± a quarter decade of
  /// smoothing) on the part of the coarse grid that could hold the best, and recommends the middle
  /// of its band. 0 or a multiple of per_decade: its gains keep the coarse grid's offset in
  /// decades, so they include the coarse gains (and at eight per decade stay off the full scan's
  /// when kktdae-errdyn offsets the tuner). It costs two to four times the coarse scan
  /// (docs/notes/baumgarte-adaptive-gains.md, "Measured gains"). A refinement with fewer than two gains, or none
  /// usable, leaves the coarse band as the answer, and the message says so.
  int refine_per_decade = 8;
  int refine_ensemble_size = 7;         ///< odd, ≥ 1
  int refine_smoothing_half_width = 2;  ///< ≥ 0: 2 at eight per decade is ± a quarter decade
  /// The refinement spans every coarse gain whose smoothed efficiency is within this many digits
  /// of the coarse best (≥ band_tolerance), not only the coarse band: where two peaks lie within
  /// the coarse scan's noise of each other, the finer scan decides between them.
  double refine_candidate_tolerance = 0.3;
  /// ... widened by this many decades on each side (≥ 0), within the coarse grid's span, so that
  /// the finer band is cut from points with full smoothing windows.
  double refine_margin = 0.25;
  SweepOptions parallel;  ///< the runs are independent; the result is the same for any count
  void validate() const;  ///< throws std::invalid_argument naming the bad field and its value
};

/// What the scan measured and recommends.
struct AdaptiveGainTuning {
  /// The scan gave a gain and `omega` is it; false: no scan ran or none of its gains was
  /// usable, and the caller falls back to the rule (message says why).
  bool used = false;
  std::string message;         ///< what was done, or why the scan gave no gain
  double omega = 0.0;          ///< √(band_low · band_high) of the scan's band [rad/s]
  double rule_omega = 0.0;     ///< the closed form's gain from the same measuring run [rad/s]
  double reference_tolerance = 0.0;  ///< rtol = atol of the reference used (of the last attempt)
  /// The scan the gain comes from (the refinement's where one ran): its smoothed best, band,
  /// curve and grid (the coarse scan's extension included; the refinement does not extend).
  AdaptiveGainBest best;
  /// That scan's grid points: ω = 0 first, then best.omegas in order (AdaptiveGainScan::runs).
  std::vector<AdaptiveGainRun> scan_runs;
  /// With refine_per_decade > 0: true when the refinement ran and `best` is its scan. `coarse`
  /// and `coarse_runs` then hold the first scan (otherwise they are empty).
  bool refined = false;
  AdaptiveGainBest coarse;                  ///< the first scan's best, when refined
  std::vector<AdaptiveGainRun> coarse_runs;  ///< the first scan's grid points, when refined
  long grid_points = 0;        ///< gains scanned, in both scans (ω = 0 not counted)
  long runs = 0;               ///< solver runs: the reference (each attempt), and every member of every grid point and of ω = 0
  /// Model calls of everything the scan ran (reference and every member; not the measuring run,
  /// which the rule needs as well): rhs_evaluations + newton_model_evaluations.
  long model_calls = 0;
  long reference_model_calls = 0;  ///< of those, the reference's (each attempt)
};

/// Scans the gain of `integrator` (cvode_bdf, cvode_adams or ida_index1) on `system` from `start`
/// (consistent) over `horizon` at rtol = atol = `tolerance`, around the candidates of `measured`
/// (the rule's run: Ω and its mean step h̄), at damping ratio `zeta`, and recommends the middle of
/// the scan's band. A measuring run without Ω and h̄, a reference ida_ggl cannot make (after the
/// retry), or a scan without a usable point ends in used = false with the reason in message (not
/// an exception: the rule is still an answer). Deterministic for any thread count. Throws
/// std::invalid_argument for invalid options or arguments.
AdaptiveGainTuning tuneAdaptiveGain(const ConstrainedSystem& system, const State& start, Integrator integrator,
                                    double tolerance, double horizon, double zeta, const MotionTimeScale& measured,
                                    const AdaptiveGainTunerOptions& options = {});

/// The refinement's grid: 10^(j/refine_per_decade + grid_offset/per_decade) for every integer j
/// with the gain in the span of the coarse gains within refine_candidate_tolerance of the coarse
/// smoothed best, widened by refine_margin decades each side and kept inside the coarse grid.
/// Empty when refine_per_decade = 0 or the coarse scan has no finite best; it can hold a single
/// gain (refine_margin = 0 around a single candidate), which tuneAdaptiveGain() does not refine.
/// Throws std::invalid_argument for invalid options or a coarse curve of another length than its grid.
std::vector<double> adaptiveGainRefineGrid(const AdaptiveGainBest& coarse, const AdaptiveGainTunerOptions& options);

/// The scan's grid: 10^((k + grid_offset)/per_decade) for every integer k with the gain in
/// [low_factor · min(Ω, 1/h̄), high_factor · max(Ω, 1/h̄)], ascending. Throws
/// std::invalid_argument for Ω ≤ 0, h̄ ≤ 0, or invalid options.
std::vector<double> adaptiveGainTunerGrid(double motion_rate, double mean_step, const AdaptiveGainTunerOptions& options);

}  // namespace kktdae

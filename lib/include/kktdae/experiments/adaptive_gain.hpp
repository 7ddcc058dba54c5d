#pragma once
/// @file
/// What Baumgarte gain an adaptive integrator wants: one problem run at every ω of a grid and
/// every tolerance, scored by the digits of its whole output path against a tight reference per
/// unit of work in model calls (docs/notes/baumgarte-adaptive-gains.md).

#include <string>
#include <vector>

#include "kktdae/parallel/sweep.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// A problem with a known path: a consistent start and the reference at equally spaced outputs.
struct AdaptiveGainProblem {
  std::string name;                           ///< for the table
  const ConstrainedSystem* system = nullptr;  ///< must outlive the call; read from several threads
  State start;                                ///< on the manifold (consistent)
  double t_end = 1.0;                         ///< > start.t [s]
  /// q at the n output times t0 + k (t_end − t0)/n, k = 1 … n (adaptiveGainReferencePath()): the
  /// first reference_path[0].size() coordinates are scored. A coordinate that is exactly 0 at
  /// every output (a planar chain's z) is left out.
  std::vector<Vector> reference_path;
};

/// The reference end state of `system` from `start` at t_end: ida_ggl at rtol (atol = rtol),
/// stopping exactly at t_end. Throws std::invalid_argument when that run fails.
Vector adaptiveGainReference(const ConstrainedSystem& system, const State& start, double t_end, double rtol = 1e-12);

/// The reference path for AdaptiveGainProblem::reference_path: ida_ggl at rtol (atol = rtol),
/// interpolated at the `outputs` (≥ 1) equally spaced times after the start, the first
/// `components` coordinates of q (0 = all). Throws std::invalid_argument when that run fails.
std::vector<Vector> adaptiveGainReferencePath(const ConstrainedSystem& system, const State& start, double t_end,
                                              long outputs, Eigen::Index components = 0, double rtol = 1e-12);

/// adaptiveGainReferencePath() with the run that made it: what a caller that accounts for its
/// model calls (recommendBaumgarteForModel()'s scan) needs besides the path.
struct AdaptiveGainReferenceRun {
  std::vector<Vector> path;  ///< as adaptiveGainReferencePath() returns it
  Summary summary;           ///< the ida_ggl run's (its counters are the reference's cost)
};

/// As adaptiveGainReferencePath(), keeping the run's Summary; a failed run is returned, not thrown
/// (path empty, summary says why). Throws std::invalid_argument for invalid arguments.
AdaptiveGainReferenceRun runAdaptiveGainReference(const ConstrainedSystem& system, const State& start, double t_end,
                                                  long outputs, Eigen::Index components = 0, double rtol = 1e-12);

/// The path score of AdaptiveGainRun::scd: −log₁₀ of the root mean square over the outputs of
/// max_i |q_i(t_k) − r_i(t_k)| / max_k |r_i(t_k)| (each coordinate scaled by its own largest
/// reference value, so zero crossings and mixed units do not matter; coordinates whose reference
/// is 0 throughout are left out). Throws std::invalid_argument for mismatched sizes.
double pathDigits(const std::vector<Vector>& path, const std::vector<Vector>& reference);

/// The motion's own time scale, from one run without feedback.
struct MotionTimeScale {
  /// Ω = √(Σ_k a_kᵀ M a_k / Σ_k q̇_kᵀ M q̇_k) over the outputs [rad/s], a_k the central difference
  /// of q̇: the rate at which the motion turns its velocity (a pendulum of frequency Ω gives Ω),
  /// in the kinetic metric so that mixed units (angles, lengths) weigh as the energy does.
  double motion_rate = 0.0;
  double mean_step = 0.0;  ///< duration / steps: the mean step the error test allowed [s]
  Summary summary;         ///< of the run
};

/// Runs `integrator` (adaptive) without Baumgarte terms from `start` to t_end at rtol = atol =
/// tolerance with `outputs` interpolated output intervals (≥ 4) and measures MotionTimeScale. A
/// failed run keeps what it saw (summary says why). Throws std::invalid_argument for invalid
/// arguments, or when the motion is at rest at every output (no time scale).
MotionTimeScale measureMotionTimeScale(const ConstrainedSystem& system, const State& start, double t_end,
                                       Integrator integrator, double tolerance, long outputs = 200);

/// What scanAdaptiveGains() runs: integrators, tolerances, the ω grid (and its extension),
/// ensembles, and how the efficiency curve is smoothed and its band cut.
struct AdaptiveGainOptions {
  /// Adaptive integrators with Baumgarte terms (cvode_bdf, cvode_adams, ida_index1).
  std::vector<Integrator> integrators = {Integrator::CvodeBdf, Integrator::IdaIndex1};
  /// rtol = atol of each scan (each > 0).
  std::vector<double> tolerances = {1e-5, 1e-7, 1e-10};
  /// The gains ω > 0 [rad/s] to try, ascending; ω = 0 (no feedback) is always run as well.
  std::vector<double> omegas;
  /// Above the grid's top, go on by the grid's own ratio (its last two gains), two gains per
  /// round, while the top run reaches the end at less than extend_work_factor × the work of the
  /// ω = 0 run, up to this ω [rad/s]; 0 = the grid as given. Where the work stays flat to the
  /// grid's end (ida_index1 on Andrews' squeezer) the best can lie past it; the extension finds
  /// where the work rises instead of reading the curve at the grid's end.
  double extend_max_omega = 0.0;
  double extend_work_factor = 10.0;  ///< > 1: the work factor over ω = 0 at which extending stops
  /// Runs per grid point (odd, ≥ 1): each ω (and ω = 0) is run at the tolerances
  /// τ·10^(ensemble_step·k), k = −(n−1)/2 … (n−1)/2, and scored by the mean of their efficiencies.
  /// One run's score is one sample of a quantity that jitters with the step-size controller's
  /// discrete decisions (a spread of 0.05–0.40 digits, median 0.19: docs/notes/baumgarte-adaptive-gains.md);
  /// nearby tolerances draw other step sequences of the same expected efficiency, so the mean
  /// estimates that expectation and the members' spread is its error bar. 1 = the single run.
  int ensemble_size = 1;
  /// log₁₀ spacing of the ensemble's tolerances (> 0): small enough that the expected efficiency
  /// does not move across the ensemble, large enough that the controller's decisions change.
  double ensemble_step = 0.05;
  double zeta = 1.0;        ///< damping ratio of every gain (α = ζω, β = ω)
  long max_steps = 200000;  ///< the solvers' step cap over the run (a run over it fails)
  /// The efficiency curve is averaged over each grid point and this many neighbours on each side
  /// (fewer at the ends) before its maximum is taken (≥ 0).
  int smoothing_half_width = 2;
  /// The band of near-best gains: the contiguous ω around the smoothed best whose smoothed
  /// efficiency is within this many digits of it (> 0).
  double band_tolerance = 0.1;
  KktOptions kkt;  ///< options of every run's KKT solves
  SweepOptions parallel;    ///< the runs are independent; results are the same for any count
  /// Forwarded to every run (SimulationOptions::interrupt): once set, each run still to come ends
  /// Interrupted at its first step and scores as failed, so a scan of minutes stops in moments.
  const std::atomic<bool>* interrupt = nullptr;
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// One grid point's run: the setting, its Summary and its score. With an ensemble
/// (AdaptiveGainOptions::ensemble_size > 1) summary, scd, end_scd and work are the member's at the
/// nominal tolerance (the centre of the ensemble) and efficiency is the members' mean.
struct AdaptiveGainRun {
  Integrator integrator = Integrator::CvodeBdf;  ///< the adaptive integrator
  double tolerance = 0.0;  ///< rtol = atol of the run (the ensemble's nominal one)
  double omega = 0.0;      ///< 0: no feedback
  Summary summary;         ///< the run's status, message and counters
  bool reached_end = false;  ///< every member reached t_end with finite outputs
  double scd = 0.0;        ///< pathDigits() of the run's outputs against the reference path
  double end_scd = 0.0;    ///< significantCorrectDigits of q(t_end) against the path's last entry (non-zero ones)
  /// Model calls: Summary::rhs_evaluations (f or F, difference-quotient Jacobians included) plus
  /// Summary::newton_model_evaluations (the analytic Newton matrices' model calls).
  long work = 0;
  /// scd − log₁₀ work = −log₁₀(relative error × work): higher is better; −∞ for a failed run.
  /// With an ensemble the mean over its members, −∞ if any of them failed.
  double efficiency = 0.0;
  /// Each member's scd − log₁₀ work, in the order of the ensemble's tolerances (ascending k); one
  /// entry for a single run.
  std::vector<double> member_efficiency;
  /// Sample standard deviation of member_efficiency (0 for a single run or a failed member): the
  /// scatter of one run's score at this ω, the error bar of a single-run measurement.
  double efficiency_spread = 0.0;
  /// Each member's model calls (as `work`), in the same order as member_efficiency: their sum is
  /// what the grid point cost, where `work` is the centre member's alone.
  std::vector<long> member_work;
};

/// The best gain of one (integrator, tolerance) scan.
struct AdaptiveGainBest {
  Integrator integrator = Integrator::CvodeBdf;  ///< the scan's integrator
  double tolerance = 0.0;                        ///< the scan's rtol = atol
  double best_omega = 0.0;   ///< highest efficiency among ω > 0 (ties: the smaller ω)
  AdaptiveGainRun best;      ///< that run
  AdaptiveGainRun unstabilized;  ///< the ω = 0 run
  /// (t_end − t0) / steps of the ω = 0 run: the mean step its error test allowed [s].
  double unstabilized_mean_step = 0.0;
  ///@{
  /// The smallest and largest ω whose efficiency is within 0.1 of the best (the flat top).
  double near_best_low = 0.0, near_best_high = 0.0;
  ///@}
  /// The best ω of the efficiency averaged over each grid point and smoothing_half_width
  /// neighbours on each side: the score still scatters by a few hundredths to tenths between
  /// neighbouring gains, and the average keeps a lucky cancellation from picking the best.
  double smoothed_best_omega = 0.0;
  double smoothed_best_efficiency = 0.0;  ///< that average at smoothed_best_omega
  /// The averaged efficiency at every ω > 0 of the grid (options.omegas order).
  std::vector<double> smoothed_efficiency;
  /// The standard error of each smoothed_efficiency entry, from the ensemble spreads it averages:
  /// √(Σ efficiency_spread² / ensemble_size) / points in the window (0 for single runs, whose
  /// spread is unknown) [digits]. Differences in the smoothed curve below about twice this are
  /// not resolved by the measurement.
  std::vector<double> smoothed_error;
  /// The band: the smallest and largest ω of the contiguous run of grid points around
  /// smoothed_best_omega whose smoothed efficiency is ≥ smoothed_best_efficiency − band_tolerance.
  ///@{
  double band_low = 0.0, band_high = 0.0;
  ///@}
  /// The grid of this scan (options.omegas, then any extension above it), for placeInBand().
  std::vector<double> omegas;
  /// Index in AdaptiveGainScan::runs of this scan's ω = 0 run; its grid's runs follow in order.
  std::size_t first_run = 0;
  /// Root mean square of each grid point's efficiency about the smoothed curve, over the points
  /// whose smoothed efficiency is within kAdaptiveGainTopWidth of the smoothed best: the noise
  /// left in the curve near its top, from which the band is cut [digits].
  double scatter = 0.0;
  /// Root mean square of efficiency_spread over the same points: one run's error bar near the top
  /// (0 for single runs) [digits].
  double ensemble_spread = 0.0;
};

/// Digits below the smoothed best within which AdaptiveGainBest::scatter is measured.
inline constexpr double kAdaptiveGainTopWidth = 0.5;

/// Where a recommended ω falls relative to a scan's best.
struct AdaptiveGainPlacement {
  double ratio = 0.0;   ///< ω / smoothed_best_omega
  /// 1 inside [band_low, band_high]; outside, the factor (> 1) by which ω misses the band:
  /// band_low/ω below it, ω/band_high above it.
  double outside_factor = 1.0;
  int side = 0;         ///< −1 below the band, 0 inside, +1 above
  /// smoothed_best_efficiency − the smoothed efficiency interpolated (linearly in log ω) at ω,
  /// clamped to the grid's ends: the digits per unit of work ω gives up [digits].
  double loss = 0.0;
  /// The standard error of loss: the smoothed errors at the best and at ω (interpolated the same
  /// way) added in quadrature; 0 for single runs. A loss below about twice this is within the
  /// measurement's noise [digits].
  double loss_error = 0.0;
};

/// Places `omega` (> 0) relative to `best`. Throws std::invalid_argument for ω ≤ 0 or a best
/// without a grid.
AdaptiveGainPlacement placeInBand(const AdaptiveGainBest& best, double omega);

/// What scanAdaptiveGains() returns: every run, and each scan's best gain and band.
struct AdaptiveGainScan {
  /// Integrator-major, then tolerance, then ω (0 first); a scan whose grid was extended
  /// (AdaptiveGainOptions::extend_max_omega) has more runs than the others: use first_run.
  std::vector<AdaptiveGainRun> runs;
  std::vector<AdaptiveGainBest> best;  ///< one per (integrator, tolerance), in the same order
};

/// Runs every (integrator, tolerance, ω) of `options` on `problem`. A failed run is a row (its
/// Summary says why); throws std::invalid_argument for invalid options or problems.
AdaptiveGainScan scanAdaptiveGains(const AdaptiveGainProblem& problem, const AdaptiveGainOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// What Baumgarte gain an adaptive integrator wants: one problem run at every ω of a grid and
/// every tolerance, scored by the significant correct digits of its end state per unit of work
/// (docs/baumgarte.md §9).

#include <string>
#include <vector>

#include "kktdae/parallel/sweep.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// A problem with a known end state: a consistent start and the reference at t_end.
struct AdaptiveGainProblem {
  std::string name;                           ///< for the table
  const ConstrainedSystem* system = nullptr;  ///< must outlive the call; read from several threads
  State start;                                ///< on the manifold (consistent)
  double t_end = 1.0;                         ///< > start.t [s]
  /// The first reference_q.size() coordinates of q at t_end, the scored components; an entry
  /// that is exactly 0 (a coordinate the model holds at zero) is left out of scd.
  Vector reference_q;
};

/// The reference end state of `system` from `start` at t_end: ida_ggl at rtol (atol = rtol),
/// stopping exactly at t_end. Throws std::invalid_argument when that run fails.
Vector adaptiveGainReference(const ConstrainedSystem& system, const State& start, double t_end, double rtol = 1e-12);

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

struct AdaptiveGainOptions {
  /// Adaptive integrators with Baumgarte terms (cvode_bdf, cvode_adams, ida_index1).
  std::vector<Integrator> integrators = {Integrator::CvodeBdf, Integrator::IdaIndex1};
  /// rtol = atol of each scan (each > 0).
  std::vector<double> tolerances = {1e-5, 1e-7, 1e-10};
  /// The gains ω > 0 [rad/s] to try, ascending; ω = 0 (no feedback) is always run as well.
  std::vector<double> omegas;
  double zeta = 1.0;        ///< damping ratio of every gain (α = ζω, β = ω)
  long max_steps = 200000;  ///< the solvers' step cap over the run (a run over it fails)
  KktOptions kkt;
  SweepOptions parallel;    ///< the runs are independent; results are the same for any count
  void validate() const;
};

/// One run: the setting, its Summary and its score.
struct AdaptiveGainRun {
  Integrator integrator = Integrator::CvodeBdf;
  double tolerance = 0.0;
  double omega = 0.0;      ///< 0: no feedback
  Summary summary;
  bool reached_end = false;
  double scd = 0.0;        ///< significantCorrectDigits of q(t_end) against the reference's non-zero entries
  long work = 0;           ///< Summary::rhs_evaluations: f (CVODE) or F (IDA) calls, Jacobians' included
                           ///< (the scan runs with NewtonMatrix::DifferenceQuotient so that they are)
  /// scd − log₁₀ work = −log₁₀(relative error × work): higher is better; −∞ for a failed run.
  double efficiency = 0.0;
};

/// The best gain of one (integrator, tolerance) scan.
struct AdaptiveGainBest {
  Integrator integrator = Integrator::CvodeBdf;
  double tolerance = 0.0;
  double best_omega = 0.0;   ///< highest efficiency among ω > 0 (ties: the smaller ω)
  AdaptiveGainRun best;      ///< that run
  AdaptiveGainRun unstabilized;  ///< the ω = 0 run
  /// (t_end − t0) / steps of the ω = 0 run: the mean step its error test allowed [s].
  double unstabilized_mean_step = 0.0;
  /// The smallest and largest ω whose efficiency is within 0.1 of the best (the flat top).
  double near_best_low = 0.0, near_best_high = 0.0;
  /// The best ω of the efficiency averaged over each grid point and its two neighbours (one at
  /// the ends): one end state's scd scatters by a few tenths between neighbouring gains, and the
  /// average keeps a single lucky cancellation from picking the best.
  double smoothed_best_omega = 0.0;
  double smoothed_best_efficiency = 0.0;  ///< that average at smoothed_best_omega
  /// The averaged efficiency at every ω > 0 of the grid (options.omegas order).
  std::vector<double> smoothed_efficiency;
};

struct AdaptiveGainScan {
  std::vector<AdaptiveGainRun> runs;   ///< integrator-major, then tolerance, then ω (0 first)
  std::vector<AdaptiveGainBest> best;  ///< one per (integrator, tolerance), in the same order
};

/// Runs every (integrator, tolerance, ω) of `options` on `problem`. A failed run is a row (its
/// Summary says why); throws std::invalid_argument for invalid options or problems.
AdaptiveGainScan scanAdaptiveGains(const AdaptiveGainProblem& problem, const AdaptiveGainOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// Predicted against measured Baumgarte stability limits over models, integrators and steps:
/// the table of docs/baumgarte.md §5, as one library call.

#include <atomic>
#include <string>
#include <vector>

#include "kktdae/experiments/runaway_limit.hpp"
#include "kktdae/experiments/stability_bisection.hpp"
#include "kktdae/experiments/trajectory_stability.hpp"
#include "kktdae/parallel/sweep.hpp"

namespace kktdae {

/// One row to compute: a model started off its manifold, an integrator and a step.
struct LimitComparisonCase {
  std::string model;                          ///< a name for the table
  const ConstrainedSystem* system = nullptr;  ///< must outlive the call; read from several threads
  State start;                                ///< off the manifold (|φ(q0)| > 0)
  Integrator integrator = Integrator::Rk4;    ///< fixed-step
  double dt = 0.005;                          ///< [s]
};

/// What compareStabilityLimits() computes for every row besides the closed form: the predictions
/// (and their variants), the runaway prediction and the measured limit, with their shared settings.
struct LimitComparisonOptions {
  double zeta = 1.0;       ///< damping ratio of every gain
  double horizon = 20.0;   ///< every run's length [s]
  long min_steps = 400;    ///< …but at least this many steps
  double tolerance = 1e-3; ///< of both bisections [dt·ω]
  /// The prediction's reference run: critically damped at this fraction of the closed-form limit
  /// (the physical motion, held by a gain well inside every limit).
  double reference_fraction = 0.5;
  /// Also predict with J frozen, with γ dropped, and with the constraints decoupled (three more
  /// bisections per row), to attribute the departure from the closed form.
  bool variants = true;
  /// Also predict the finite-amplitude limit for this horizon from the energy pumped in short
  /// probe runs (predictRunawayLimit(): about a dozen runs of `runaway_probe_horizon` per row).
  bool runaway = true;
  double runaway_probe_horizon = 10.0;  ///< RunawayLimitOptions::probe_horizon [s] (its default)
  double runaway_energy_fraction = 0.3; ///< RunawayLimitOptions::energy_fraction
  SweepOptions parallel;   ///< rows run in parallel; each row is serial inside
  /// Read between a row's limits (each a bisection, about a second): once set, the rows end
  /// unfinished (the limits not computed keep their defaults, found = false), so the call returns
  /// within one limit's time. The caller that set it discards the rows.
  const std::atomic<bool>* interrupt = nullptr;
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// One case's limits, all in dt·ω: closed form, predicted (and its variants), runaway, measured.
struct LimitComparisonRow {
  std::string model;                        ///< the case's name
  Integrator integrator = Integrator::Rk4;  ///< the case's integrator
  double dt = 0.0;                          ///< the case's step [s]
  double closed_form = 0.0;          ///< baumgarteStabilityLimit(integrator, ζ)
  TrajectoryLimit predicted;         ///< the normal block of the real step (NormalBlockVariant::Full)
  TrajectoryLimit frozen_jacobian;   ///< J frozen within the step (when options.variants)
  TrajectoryLimit no_gamma;          ///< γ dropped (when options.variants)
  TrajectoryLimit decoupled;         ///< constraint-coupling blocks zeroed (when options.variants)
  RunawayLimit runaway;              ///< the finite-amplitude prediction (when options.runaway)
  StabilityBisection measured;       ///< bisection on runs classified as runStabilityMap() does
};

/// Computes every case, rows in the order given, the same for any thread count. Throws
/// std::invalid_argument for invalid options or cases.
std::vector<LimitComparisonRow> compareStabilityLimits(const std::vector<LimitComparisonCase>& cases,
                                                       const LimitComparisonOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// How much energy a fixed-step integrator's Baumgarte terms pump into the motion: one run at a
/// gain, the energy the start's correction leaves behind and the mean rate at which it grows
/// afterwards (docs/baumgarte.md §5, the runaway's two ingredients).

#include <string>

#include "kktdae/experiments/stability_map.hpp"

namespace kktdae {

/// One run measured by measureEnergyPumping(): the integrator, step and gain, and the window over
/// which the energy's drift is fitted.
struct EnergyPumpingOptions {
  Integrator integrator = Integrator::Rk4;  ///< fixed-step only
  double dt = 0.005;        ///< step [s]
  double zeta = 1.0;        ///< damping ratio ζ ≥ 0: α = ζω, β = ω
  double dt_omega = 1.0;    ///< the gain, as dt·ω > 0
  double horizon = 5.0;     ///< the run's length [s] (rounded to whole steps)…
  long min_steps = 400;     ///< …but at least this many (≥ 10)
  /// When the start's correction is taken as over [s]: the energy is fitted from here on. The
  /// error itself settles in a few 1/(ζω), but the energy it leaves spreads through the motion
  /// over the motion's own period; 1 s covers the chains and the circle. Must be < the run.
  double settle_time = 1.0;
  double blowup_ratio = 1e6;  ///< as StabilityMapOptions
  double decay_ratio = 1e-3;  ///< as StabilityMapOptions
  KktForm form = KktForm::Schur;  ///< the KKT form of every step
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// What one run did to the energy and to the constraint error.
struct EnergyPumping {
  /// The run's error, classified as runStabilityMap() does over this run's length.
  ErrorBehaviour behaviour = ErrorBehaviour::Bounded;
  double start_energy = 0.0;    ///< E(q0, q̇0) [J]
  double settled_energy = 0.0;  ///< E at settle_time: what the start's correction left [J]
  /// Least-squares slope of E(t) over [settle_time, end] [J/s]: the mean power the step's
  /// stabilization feeds the motion (< 0 when it dissipates). NaN if the run ended before.
  double rate = 0.0;
  double mean_kinetic = 0.0;  ///< mean kinetic energy over the same window [J]: the motion's scale
  double e0 = 0.0;            ///< ‖φ(q0)‖∞
  /// max ‖φ‖∞ over the run's last tenth, and over the tenth before it: their ratio is the error's
  /// own trend at the run's end, which a longer run would continue.
  ///@{
  double late_max = 0.0, previous_max = 0.0;
  ///@}
  double end_time = 0.0;      ///< where the run ended (its horizon, or where it failed) [s]
  long steps = 0;             ///< steps completed
  std::string message;        ///< the run's failure, if any
};

/// One run of `system` from `start` (off the manifold) at dt·ω = options.dt_omega, observing the
/// total energy and the constraint error. Throws std::invalid_argument for invalid options or a
/// start on the manifold.
EnergyPumping measureEnergyPumping(const ConstrainedSystem& system, const State& start,
                                   const EnergyPumpingOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// The Baumgarte limit of dt·ω for a horizon T predicted from the energy the stabilization pumps
/// into the motion (docs/baumgarte.md §5): a short probe run per gain measures the energy the
/// start's correction leaves and the mean pumping rate after it; the run is predicted to run away
/// within T when the probe already blows up, when its error's end trend carried on to T ends above
/// e0, or when the pumped energy extrapolated to T exceeds a fraction of the motion's kinetic
/// energy.

#include <string>
#include <string_view>

#include "kktdae/experiments/energy_pumping.hpp"

namespace kktdae {

struct RunawayLimitOptions {
  Integrator integrator = Integrator::Rk4;  ///< fixed-step only
  double dt = 0.005;      ///< step [s]
  double zeta = 1.0;      ///< damping ratio ζ ≥ 0
  double horizon = 20.0;  ///< T: the horizon the prediction is for [s] (the measured runs' length)
  long min_steps = 400;   ///< the measured runs' minimum steps (so T is at least this many steps)
  /// Each probe's length [s], at most T (and at least min_steps steps, as the measured run). The
  /// prediction extrapolates the probe's pumping rate from its end to T.
  double probe_horizon = 5.0;
  double settle_time = 1.0;  ///< as EnergyPumpingOptions: the energy is fitted from here on
  /// The runaway threshold: the energy pumped after the correction settled, rate·(T − settle_time),
  /// over the probe's mean kinetic energy. The pumping loop closes (more speed, more drift, more
  /// work) once the motion carries that much more energy than it had; docs/baumgarte.md §5
  /// measures it on the double pendulum.
  double energy_fraction = 0.3;
  /// Bracket of dt·ω; 0 picks 0.5× and 1.15× baumgarteStabilityLimit(ζ), as the measurement.
  double lower = 0.0, upper = 0.0;
  double tolerance = 1e-3;    ///< stop when the bracket is narrower [dt·ω]
  double blowup_ratio = 1e6;  ///< as StabilityMapOptions
  double decay_ratio = 1e-3;  ///< as StabilityMapOptions
  KktForm form = KktForm::Schur;
  void validate() const;
};

/// Why one gain was judged as it was.
enum class RunawayVerdict {
  Stable,         ///< the probe stayed stable and the extrapolated pumping stays below the threshold
  /// The probe blew up (the start's correction, or an early runaway), or its late error,
  /// carried on to T at the probe's own end trend, ends above e0 (the error's own growth).
  ProbeUnstable,
  Pumped,         ///< the probe was stable, but the energy pumped by T exceeds the threshold
};

/// "stable", "probe_unstable", "pumped".
std::string_view toString(RunawayVerdict verdict);

struct RunawayLimit {
  double limit = 0.0;  ///< midpoint of the final bracket [dt·ω]; NaN when not found
  bool found = false;
  std::string message;              ///< when not found: which end of the bracket failed and how
  double lower = 0.0, upper = 0.0;  ///< the final bracket
  EnergyPumping at_lower, at_upper; ///< the probes at the final bracket's ends
  RunawayVerdict verdict_at_upper = RunawayVerdict::Stable;  ///< what made the upper end unstable
  int probes = 0;                   ///< probe runs made
};

/// The prediction's verdict for one probe: `pumping` measured over the probe, extrapolated to the
/// horizon T of `options`.
RunawayVerdict runawayVerdict(const EnergyPumping& pumping, const RunawayLimitOptions& options);

/// Bisection on the verdict over dt·ω at fixed ζ, one probe run per evaluation from `start`
/// (off the manifold). Assumes one stable→unstable crossing in the bracket. Throws
/// std::invalid_argument for invalid options or a start on the manifold.
RunawayLimit predictRunawayLimit(const ConstrainedSystem& system, const State& start,
                                 const RunawayLimitOptions& options);

}  // namespace kktdae

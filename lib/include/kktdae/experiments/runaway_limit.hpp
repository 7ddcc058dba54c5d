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
#include <vector>

#include "kktdae/experiments/energy_pumping.hpp"

namespace kktdae {

/// How predictRunawayLimit() probes each gain (probe length, starts, the energy threshold) and
/// brackets and bisects dt·ω.
struct RunawayLimitOptions {
  Integrator integrator = Integrator::Rk4;  ///< fixed-step only
  double dt = 0.005;      ///< step [s]
  double zeta = 1.0;      ///< damping ratio ζ ≥ 0
  double horizon = 20.0;  ///< T: the horizon the prediction is for [s] (the measured runs' length)
  long min_steps = 400;   ///< the measured runs' minimum steps (so T is at least this many steps)
  /// Each probe's length [s], at most T (and at least min_steps steps, as the measured run). The
  /// prediction extrapolates the probe's pumping rate from its end to T. 10 s: on the triple
  /// pendulum at dt = 0.01 the pumping starts only after 5 s (every nearby start is quiet over
  /// 1–5 s at dt·ω = 2.225 and pumps about 1 J/s over 5–10 s), so 5-s probes predict 0.033 too
  /// high; 10 s costs twice the run time per probe (docs/baumgarte.md §5 has the table for both).
  double probe_horizon = 10.0;
  /// Probe runs per gain: one from the start and probe_starts − 1 from nearby starts
  /// (nearbyStart()); the verdict is the ensemble's (runawayVerdict() over all of them): unstable
  /// if any probe is, otherwise the mean rate against the mean kinetic energy, so a rate that
  /// one probe draws from a burst the motion gives back later is averaged with others. 1 (the
  /// default): one probe per gain, bit for bit the prediction without this option. Measured on
  /// the chains (docs/baumgarte.md §5), more starts do not bring the prediction closer to the
  /// measurement: starts 1e-3 apart have not decorrelated within a probe (their rates agree to a
  /// few per cent), and starts 0.1 apart sample motions whose own measured limits differ by up to
  /// 0.06. Costs probe_starts runs of probe_horizon per gain.
  int probe_starts = 1;
  /// How far the nearby starts' velocities are moved [the coordinates' velocity units, ∞-norm],
  /// tangentially (J δq̇ = 0, so φ and φ̇ at the start are the start's): small enough not to change
  /// the start's energy or error noticeably; a chaotic motion's probes decorrelate only once this
  /// has grown to the motion's scale (about 7 s from 1e-3 on the triple pendulum at dt 0.005).
  double start_spread = 1e-3;
  double settle_time = 1.0;  ///< as EnergyPumpingOptions: the energy is fitted from here on
  /// The runaway threshold: the energy pumped after the correction settled, rate·(T − settle_time),
  /// over the probe's mean kinetic energy. The pumping loop closes (more speed, more drift, more
  /// work) once the motion carries that much more energy than it had; docs/baumgarte.md §5
  /// measures it on the double pendulum.
  double energy_fraction = 0.3;
  ///@{
  /// Bracket of dt·ω; 0 picks 0.5× and 1.15× baumgarteStabilityLimit(ζ), as the measurement.
  double lower = 0.0, upper = 0.0;
  ///@}
  double tolerance = 1e-3;    ///< stop when the bracket is narrower [dt·ω]
  double blowup_ratio = 1e6;  ///< as StabilityMapOptions
  double decay_ratio = 1e-3;  ///< as StabilityMapOptions
  KktForm form = KktForm::Schur;  ///< the KKT form of every step
  /// Throws std::invalid_argument naming the field and value.
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

/// Mean and spread of one gain's probes (all of them, the start's and the nearby ones').
struct RunawayProbeEnsemble {
  int probes = 0;            ///< probe runs made at this gain (fewer than probe_starts if one was unstable)
  int unstable = 0;          ///< of which unstable (blew up, or a late error carried on to T above e0)
  double mean_rate = 0.0;    ///< mean pumping rate of the stable probes [J/s]; NaN if none
  double rate_deviation = 0.0;  ///< their sample standard deviation [J/s]; 0 for one probe
  double mean_kinetic = 0.0; ///< mean of their mean kinetic energies [J]
};

/// The predicted limit predictRunawayLimit() found, with its final bracket and the probes there.
struct RunawayLimit {
  double limit = 0.0;  ///< midpoint of the final bracket [dt·ω]; NaN when not found
  bool found = false;  ///< the bracket's ends were judged as required and it was narrowed
  std::string message;              ///< when not found: which end of the bracket failed and how
  ///@{
  double lower = 0.0, upper = 0.0;  ///< the final bracket
  ///@}
  ///@{
  EnergyPumping at_lower, at_upper; ///< the probes from the start itself at the final bracket's ends
  ///@}
  ///@{
  RunawayProbeEnsemble ensemble_at_lower, ensemble_at_upper;  ///< every probe at those ends
  ///@}
  RunawayVerdict verdict_at_upper = RunawayVerdict::Stable;  ///< what made the upper end unstable
  int probes = 0;                   ///< probe runs made
};

/// The prediction's verdict for one probe: `pumping` measured over the probe, extrapolated to the
/// horizon T of `options`.
RunawayVerdict runawayVerdict(const EnergyPumping& pumping, const RunawayLimitOptions& options);

/// The verdict for one gain's probes: ProbeUnstable if any probe's own verdict is; otherwise
/// Pumped when mean(rate)·(T − settle_time) > energy_fraction · mean(mean_kinetic). For one probe
/// it is runawayVerdict(probes[0], options). Throws std::invalid_argument if `probes` is empty.
RunawayVerdict runawayVerdict(const std::vector<EnergyPumping>& probes, const RunawayLimitOptions& options);

/// Probe start `index` of the ensemble: index 0 is `start`; index 2j − 1 and 2j (j ≥ 1) move
/// start.v by +spread·d_j and −spread·d_j, d_j a fixed pattern projected onto ker J(q0)
/// (Euclidean) and scaled to ‖d_j‖∞ = 1, so φ(q0) and φ̇(q0, q̇0) stay the start's (to rounding)
/// and paired starts cancel the perturbation's first-order bias. start.q and start.v have size
/// nq. Throws std::invalid_argument for a negative index or spread, wrong sizes, or (index ≥ 1)
/// when ker J is empty (nothing can move without moving φ̇).
State nearbyStart(const ConstrainedSystem& system, const State& start, int index, double spread);

/// Bisection on the verdict over dt·ω at fixed ζ, probe_starts probe runs per evaluation from
/// `start` (off the manifold) and its nearby starts. Assumes one stable→unstable crossing in the bracket. Throws
/// std::invalid_argument for invalid options or a start on the manifold.
RunawayLimit predictRunawayLimit(const ConstrainedSystem& system, const State& start,
                                 const RunawayLimitOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// Where Baumgarte stabilization stops working: runs over a grid of (dt, ω) classified by what the
/// constraint error does.

#include <string>
#include <string_view>
#include <vector>

#include "kktdae/parallel/sweep.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// What the constraint error e = ‖φ‖∞ did over a run, judged against its start e0
/// (thresholds in StabilityMapOptions, defaults as in docs/baumgarte.md).
enum class ErrorBehaviour {
  Decays,   ///< max e over the last tenth of the run < decay_ratio · e0
  Bounded,  ///< neither decays nor grows
  Grows,    ///< max e over the last tenth > e0
  BlowUp,   ///< non-finite state, failed solve, or e > blowup_ratio · e0 at any time
};

/// "decays", "bounded", "grows", "blow-up".
std::string_view toString(ErrorBehaviour behaviour);

/// The grid runStabilityMap() runs (every dt × every ω, Baumgarte at damping ratio ζ) and the
/// thresholds by which each run's error is judged (ErrorBehaviour).
struct StabilityMapOptions {
  Integrator integrator = Integrator::SemiImplicitEuler;  ///< fixed-step only
  std::vector<double> dts{0.005};     ///< step sizes [s]
  std::vector<double> omegas{20.0};   ///< Baumgarte ω = β [rad/s]; α = ζ ω
  double zeta = 1.0;                  ///< damping ratio ζ ≥ 0
  double horizon = 2.0;               ///< each run's length [s] (rounded to whole steps; < 9e18 steps)
  long min_steps = 400;               ///< …but at least this many steps
  double blowup_ratio = 1e6;  ///< e > blowup_ratio · e0 at any time: BlowUp
  double decay_ratio = 1e-3;  ///< late max e < decay_ratio · e0: Decays
  KktForm form = KktForm::Schur;  ///< the KKT form of every step
  /// Threads for the grid's runs (one cell per task); the cells are the same for any count.
  SweepOptions parallel;
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// One run of the map: its step and gain, and what its constraint error did.
struct StabilityCell {
  ///@{
  double dt = 0.0, omega = 0.0;  ///< the step [s] and Baumgarte ω [rad/s] of the run
  ///@}
  ErrorBehaviour behaviour = ErrorBehaviour::Bounded;  ///< the verdict on the run's error
  double e0 = 0.0;               ///< ‖φ(q0)‖∞
  double late_max = 0.0;         ///< max e over the last tenth of the observed run
  long steps = 0;                ///< steps completed
};

/// One run per (dt, ω) pair, from `start` (which must be off the manifold: e0 > 0), in the order
/// dts × omegas (dt outer), the runs spread over options.parallel's threads (`system` is read
/// from all of them at once; the cells are bitwise those of a serial run). Throws
/// std::invalid_argument if e0 = 0 or the options are invalid.
std::vector<StabilityCell> runStabilityMap(const ConstrainedSystem& system, const State& start,
                                           const StabilityMapOptions& options);

/// The measured counterpart of baumgarteStabilityLimit(): in each dt row (sorted by ω), the dt·ω
/// of the first cell above the last one that decays or stays bounded — the lower edge of the
/// unstable band at high gain. A weak gain can also let the error grow (the motion's own drift
/// outruns the correction), which is not the instability this measures, hence "above the last
/// stable cell". A row with no stable cell gives its smallest dt·ω (unstable at every gain: e.g.
/// explicit Euler on an undamped pendulum); a row that never turns unstable gives +inf. Returns
/// the smallest over rows.
double measuredStabilityLimit(const std::vector<StabilityCell>& cells);

}  // namespace kktdae

#pragma once
/// @file
/// The measured Baumgarte stability limit of dt·ω by bisection between a stable and an unstable
/// gain, with the classification of runStabilityMap().

#include "kktdae/experiments/stability_map.hpp"

namespace kktdae {

/// How bisectStabilityLimit() brackets and bisects dt·ω, and how each run is judged.
struct StabilityBisectionOptions {
  Integrator integrator = Integrator::Rk4;  ///< fixed-step only
  double dt = 0.005;    ///< step [s]
  double zeta = 1.0;    ///< damping ratio ζ ≥ 0
  double horizon = 20.0;  ///< each run's length [s]…
  long min_steps = 400;   ///< …but at least this many steps
  /// Bracket of dt·ω; 0 picks 0.5× and 1.15× baumgarteStabilityLimit(ζ). The lower end must
  /// classify as stable (decays or bounded), the upper as grows or blow-up.
  ///@{
  double lower = 0.0, upper = 0.0;
  ///@}
  double tolerance = 1e-3;  ///< stop when the bracket is narrower [dt·ω]
  double blowup_ratio = 1e6;  ///< as StabilityMapOptions
  double decay_ratio = 1e-3;  ///< as StabilityMapOptions
  KktForm form = KktForm::Schur;  ///< the KKT form of every step
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The measured limit bisectStabilityLimit() found, with its final bracket.
struct StabilityBisection {
  double limit = 0.0;  ///< midpoint of the final bracket [dt·ω]; NaN when not found
  bool found = false;  ///< the bracket's ends classified as required and it was narrowed
  std::string message;  ///< when not found: which end of the bracket failed and how
  ///@{
  double lower = 0.0, upper = 0.0;  ///< the final bracket
  ///@}
  ///@{
  ErrorBehaviour at_lower = ErrorBehaviour::Bounded, at_upper = ErrorBehaviour::Bounded;  ///< at the final ends
  ///@}
  int runs = 0;  ///< runs made
};

/// Bisection on "stable" (decays or bounded) over dt·ω at fixed ζ: one run per evaluation from
/// `start` (off the manifold). Assumes a single stable→unstable crossing inside the bracket.
/// Throws std::invalid_argument for invalid options or a start on the manifold.
StabilityBisection bisectStabilityLimit(const ConstrainedSystem& system, const State& start,
                                        const StabilityBisectionOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// Measured constraint error against Baumgarte's closed form, constraint by constraint.

#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// The Baumgarte gains checkErrorDynamics() runs with, and the tight adaptive run that isolates
/// the continuous error dynamics from the integrator's own error.
struct ErrorDynamicsCheckOptions {
  double alpha = 5.0;    ///< α [1/s]
  double beta = 10.0;    ///< β [rad/s]
  double horizon = 2.0;  ///< [s]
  double output_dt = 1e-3;  ///< comparison grid [s]
  Integrator integrator = Integrator::CvodeBdf;  ///< a tight adaptive solve isolates the dynamics
  double rtol = 1e-11;  ///< relative tolerance of the run
  double atol = 1e-13;  ///< absolute tolerance of the run
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// Largest deviations of e_k(t) = φ_k(q(t)) and ė_k(t) = φ̇_k from the closed form started at
/// each constraint's own (e_k(0), ė_k(0)), relative to max_t |e_k| and max_t |ė_k| of the closed
/// form (e crosses zero, so pointwise relative errors would be meaningless); worst over k.
struct ErrorDynamicsCheck {
  double max_rel_deviation = 0.0;       ///< of e
  double max_rel_deviation_rate = 0.0;  ///< of ė
  double e0_max = 0.0;                  ///< max_k |e_k(0)|
  Summary summary;                      ///< of the integration
};

/// Integrates `system` from `start` (which should be off the manifold) with Baumgarte (α, β) and
/// compares. Throws std::invalid_argument for invalid options; a failed run is in `summary`.
ErrorDynamicsCheck checkErrorDynamics(const ConstrainedSystem& system, const State& start,
                                      const ErrorDynamicsCheckOptions& options);

}  // namespace kktdae

#pragma once
/// @file
/// Soft constraints' measured error decay against softErrorDynamics(): a run, and the modes of
/// the constraint error identified from it.

#include "kktdae/simulate/simulate.hpp"
#include "kktdae/stabilization/soft_error_dynamics.hpp"

namespace kktdae {

/// The run checkSoftDecay() makes (a fine RK4 run, its length and sampling in time constants) and
/// which constraint it records.
struct SoftDecayCheckOptions {
  /// A fine RK4 run isolates the continuous dynamics: at dt·|s| ≈ 1e-2 its own error in a root
  /// is ~1e-10 relative.
  Integrator integrator = Integrator::Rk4;
  double dt = 1e-4;        ///< [s]
  /// Run length in units of timeconst: long enough for the slowest mode to fall by e^-5 or more
  /// at the rates softErrorDynamics() predicts, short enough to stay above rounding.
  double horizon_timeconsts = 8.0;
  /// Sampling interval of the fit in units of timeconst: the recursion's roots z = e^{sΔ} must be
  /// well away from 1 for a well-conditioned fit (Δ = τ/10 puts |sΔ| near 0.1).
  double sample_timeconsts = 0.1;
  int constraint = 0;      ///< which φ_k is recorded (0 ≤ k < nc)
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The predicted error dynamics of the soft constraints next to the modes measured on the run.
struct SoftDecayCheck {
  SoftErrorDynamics predicted;  ///< at the start state
  /// From the recorded e_k = φ_k at interval Δ, a least-squares fit of the order-2nc linear
  /// recursion with a constant term (the forced offset); its roots z give s = ln z / Δ.
  Eigen::VectorXcd measured_roots;
  double measured_decay_rate = 0.0;      ///< −max Re s [1/s]
  double measured_damping_ratio = 0.0;   ///< of that mode, as SoftErrorDynamics defines it
  double measured_natural_frequency = 0.0;  ///< |s| of that mode [rad/s]
  double measured_offset = 0.0;          ///< the recursion's fixed point [units of φ]
  long samples = 0;                      ///< samples in the fit
  Summary summary;                       ///< of the run
};

/// Runs `system` from `start` with Stabilization::softConstraint(soft) and identifies the error's
/// modes. Throws std::invalid_argument for invalid options or parameters; a failed run is in
/// `summary` (the fit then uses what was recorded).
SoftDecayCheck checkSoftDecay(const ConstrainedSystem& system, const State& start, const SoftConstraint& soft,
                              const SoftDecayCheckOptions& options = {});

}  // namespace kktdae

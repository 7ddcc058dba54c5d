#pragma once
/// @file
/// How the acceleration-level constraint is corrected against drift.

#include <string>

#include "kktdae/core/types.hpp"

namespace kktdae {

/// The constraint row the KKT solve enforces,
///
///     J q̈ + γ + 2α φ̇ + β² φ = 0,      φ̇ = J q̇ + ∂φ/∂t,
///
/// turns the constraint error e = φ into ë + 2α ė + β² e = 0 (docs/theory.md). None is α = β = 0.
struct Stabilization {
  enum class Kind {
    None,       ///< enforce φ̈ = 0 only; φ and φ̇ drift with the integration error
    Baumgarte,  ///< add 2α φ̇ + β² φ to the constraint row
  };
  Kind kind = Kind::None;
  double alpha = 0.0;  ///< damping rate α ≥ 0 [1/s]; the error's decay rate when under-damped
  double beta = 0.0;   ///< natural frequency β ≥ 0 [rad/s] of the error dynamics

  /// No correction.
  static Stabilization none();
  /// Baumgarte with explicit (α, β). Throws std::invalid_argument for negative or non-finite values.
  static Stabilization baumgarte(double alpha, double beta);
  /// Baumgarte from damping ratio ζ and natural frequency ωₙ: α = ζ ωₙ, β = ωₙ.
  static Stabilization fromDampingRatio(double zeta, double omega_n);
  /// Seed 000's single gain ω: critically damped, α = β = ω (feedback 2ω φ̇ + ω² φ).
  static Stabilization critical(double omega);

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
  /// "none" or "baumgarte(alpha=…, beta=…)".
  std::string describe() const;
};

/// Adds the stabilization terms to a constraint-row right-hand side in place:
/// target −= 2α φ̇ + β² φ (nothing for None). Sizes: all nc.
void subtractStabilizationTerms(const Stabilization& stabilization, ConstVectorRef phi,
                                ConstVectorRef phi_dot, VectorRef target);

}  // namespace kktdae

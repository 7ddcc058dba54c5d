#pragma once
/// @file
/// How the acceleration-level constraint is corrected against drift.

#include <string>

#include "kktdae/core/types.hpp"

namespace kktdae {

/// MuJoCo's soft-constraint parameters: solref = (timeconst, dampratio) and
/// solimp = (dmin, dmax, width, midpoint, power); the defaults are MuJoCo's.
struct SoftConstraint {
  double timeconst = 0.02;  ///< τ > 0 [s]: time constant of the reference spring–damper
  double dampratio = 1.0;   ///< ζ > 0: its damping ratio
  double dmin = 0.9;        ///< impedance at zero violation, in (0, 1)
  double dmax = 0.95;       ///< impedance at |φ| ≥ width, in (0, 1)
  double width = 0.001;     ///< violation over which the impedance goes from dmin to dmax [units of φ]
  double midpoint = 0.5;    ///< inflection of the impedance sigmoid, in (0, 1)
  double power = 2.0;       ///< sigmoid power ≥ 1 (1 = linear)

  /// d(|φ|) ∈ [dmin, dmax]: MuJoCo's polynomial sigmoid, clamped to [1e-4, 0.9999].
  double impedance(double violation) const;
  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

/// The constraint row the KKT solve enforces,
///
///     J q̈ + γ + 2α φ̇ + β² φ = 0,      φ̇ = J q̇ + ∂φ/∂t,
///
/// turns the constraint error e = φ into ë + 2α ė + β² e = 0 (docs/theory.md). None is α = β = 0.
struct Stabilization {
  /// The family of stabilization.
  enum class Kind {
    None,       ///< enforce φ̈ = 0 only; φ and φ̇ drift with the integration error
    Baumgarte,  ///< add 2α φ̇ + β² φ to the constraint row
    /// MuJoCo-style soft constraint: J q̈ + γ + R λ = a_ref with a_ref = −B φ̇ − K d φ and
    /// R = (1 − d)/d · diag(J M⁻¹ Jᵀ) (docs/stabilization.md): the constraint yields.
    Soft,
  };
  Kind kind = Kind::None;  ///< which family; the parameters below that it uses
  double alpha = 0.0;  ///< damping rate α ≥ 0 [1/s]; the error's decay rate when under-damped
  double beta = 0.0;   ///< natural frequency β ≥ 0 [rad/s] of the error dynamics
  SoftConstraint soft;  ///< used when kind == Soft
  /// Post-stabilization: after every accepted step, project q onto φ = 0 and then q̇ onto
  /// J q̇ + ∂φ/∂t = 0 (SimulationOptions::projection sets iterations and tolerance). Combines
  /// with any kind; with Baumgarte the feedback then acts only on what one step creates.
  bool project_after_step = false;

  /// No correction.
  static Stabilization none();
  /// Baumgarte with explicit (α, β). Throws std::invalid_argument for negative or non-finite values.
  static Stabilization baumgarte(double alpha, double beta);
  /// Baumgarte from damping ratio ζ and natural frequency ωₙ: α = ζ ωₙ, β = ωₙ.
  static Stabilization fromDampingRatio(double zeta, double omega_n);
  /// Seed 000's single gain ω: critically damped, α = β = ω (feedback 2ω φ̇ + ω² φ).
  static Stabilization critical(double omega);
  /// No feedback in the solve, projection after every step.
  static Stabilization projection();
  /// MuJoCo-style soft constraints with the given (defaults: MuJoCo's) parameters.
  static Stabilization softConstraint(SoftConstraint parameters = {});

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
  /// "none", "baumgarte(alpha=…, beta=…)", "soft(timeconst=…, …)", with "+projection" when set.
  std::string describe() const;
};

/// Adds the stabilization terms to a constraint-row right-hand side in place:
/// target −= 2α φ̇ + β² φ (Baumgarte), target −= B φ̇ + K d(|φ|) φ (Soft, with
/// B = 2/(dmax τ), K = 1/(dmax² τ² ζ²) as MuJoCo's reference acceleration), nothing for None.
/// Sizes: all nc.
void subtractStabilizationTerms(const Stabilization& stabilization, ConstVectorRef phi,
                                ConstVectorRef phi_dot, VectorRef target);

/// Soft constraints' regularization R_kk = (1 − d_k)/d_k · A_kk from the diagonal of
/// A = J M⁻¹ Jᵀ; zeros unless kind == Soft. Sizes: all nc.
void softRegularization(const Stabilization& stabilization, ConstVectorRef phi, ConstVectorRef a_diagonal,
                        VectorRef regularization);

}  // namespace kktdae

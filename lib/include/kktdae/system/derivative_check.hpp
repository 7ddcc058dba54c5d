#pragma once
/// @file
/// Finite-difference checks of a model's hand-written derivatives J, ∂φ/∂t and γ.

#include <string>

#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

struct DerivativeCheckOptions {
  /// Central-difference step, relative to max(1, |x|). The default ≈ ∛eps balances truncation
  /// (∝ step²) against rounding (∝ eps/step): about 1e-10 relative error on smooth models.
  double relative_step = 6e-6;
  void validate() const;
};

/// Largest absolute deviations between the model's derivatives and central finite differences,
/// each next to the size of the quantity it checks (so callers can form relative errors).
struct DerivativeCheckReport {
  double jacobian_error = 0.0;        ///< max |J − Δφ/Δq|
  double jacobian_scale = 0.0;        ///< max |J|
  double time_derivative_error = 0.0; ///< max |∂φ/∂t − Δφ/Δt|
  double bias_error = 0.0;            ///< max |γ − Δ(J q̇ + ∂φ/∂t)/Δs| along (q̇, 1)
  double bias_scale = 0.0;            ///< max |γ|
  double mass_asymmetry = 0.0;        ///< max |M − Mᵀ|
  /// Models with a sparse J: max |J − J_sparse| over all entries (the values placed by the
  /// pattern, every other entry 0); also −1 when a pattern position repeats or is out of range.
  /// 0 for models without a sparse J.
  double sparse_jacobian_error = 0.0;

  /// Worst of the errors divided by max(1, scale).
  double worstRelativeError() const;
  std::string describe() const;
};

/// Compares J with ∂φ/∂q, the sparse J (pattern and values) with the dense one, ∂φ/∂t with its difference quotient, and γ with the derivative of
/// φ̇ = J q̇ + ∂φ/∂t along the motion s ↦ (q + s q̇, t + s), all by central differences.
/// Allocates; meant for tests and model development. Throws std::invalid_argument on wrong sizes.
DerivativeCheckReport checkDerivatives(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v,
                                       double t, const DerivativeCheckOptions& options = {});

}  // namespace kktdae

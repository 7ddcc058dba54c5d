#pragma once
/// @file
/// Finite-difference checks of a model's hand-written derivatives J, ∂φ/∂t and γ.

#include <string>

#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// How checkDerivatives() differentiates: the central-difference step.
struct DerivativeCheckOptions {
  /// Central-difference step, relative to max(1, |x|). The default ≈ ∛eps balances truncation
  /// (∝ step²) against rounding (∝ eps/step): about 1e-10 relative error on smooth models.
  double relative_step = 6e-6;
  /// Throws std::invalid_argument unless relative_step is finite and > 0.
  void validate() const;
};

/// Where one derivative check deviates most: the entry and both values, so a caller (checkModel)
/// can name them. A NaN deviation (a NaN output) counts as the worst.
struct DerivativeDeviation {
  int row = -1;           ///< the entry's row (constraint index); −1 when nothing was compared
  int col = -1;           ///< the entry's column (coordinate) for J; −1 for vectors (∂φ/∂t, γ)
  double expected = 0.0;  ///< the difference quotient (for the sparse J: the dense J's entry)
  double got = 0.0;       ///< the model's value
};

/// Largest absolute deviations between the model's derivatives and central finite differences,
/// each next to the size of the quantity it checks (so callers can form relative errors), and
/// the entry where each is largest. Every error is NaN when the deviation it measures is NaN.
struct DerivativeCheckReport {
  double jacobian_error = 0.0;        ///< max |J − Δφ/Δq|
  double jacobian_scale = 0.0;        ///< max |J|
  double time_derivative_error = 0.0; ///< max |∂φ/∂t − Δφ/Δt|
  double time_derivative_scale = 0.0; ///< max |∂φ/∂t|
  double bias_error = 0.0;            ///< max |γ − Δ(J q̇ + ∂φ/∂t)/Δs| along (q̇, 1)
  double bias_scale = 0.0;            ///< max |γ|
  double mass_asymmetry = 0.0;        ///< max |M − Mᵀ|
  /// Models with a sparse J: max |J − J_sparse| over all entries (the values placed by the
  /// pattern, every other entry 0); also −1 when a pattern position repeats or is out of range.
  /// 0 for models without a sparse J.
  double sparse_jacobian_error = 0.0;
  /// Index k of the first pattern entry (rows[k], cols[k]) that is out of range or repeats; −1 if none.
  int sparse_pattern_bad_entry = -1;

  DerivativeDeviation jacobian_worst;         ///< where |J − Δφ/Δq| is largest
  DerivativeDeviation time_derivative_worst;  ///< where |∂φ/∂t − Δφ/Δt| is largest
  DerivativeDeviation bias_worst;             ///< where |γ − Δφ̇/Δs| is largest
  DerivativeDeviation sparse_jacobian_worst;  ///< where |J − J_sparse| is largest (valid pattern only)

  /// Worst of the errors divided by max(1, scale); +∞ when any error is NaN.
  double worstRelativeError() const;
  /// The errors and where the worst of each is, in a few lines of text.
  std::string describe() const;
};

/// Compares J with ∂φ/∂q, the sparse J (pattern and values) with the dense one, ∂φ/∂t with its difference quotient, and γ with the derivative of
/// φ̇ = J q̇ + ∂φ/∂t along the motion s ↦ (q + s q̇, t + s), all by central differences.
/// Every output is filled with NaN before the model writes it, so an entry the model leaves
/// unwritten shows as a NaN error rather than as whatever the memory held. checkModel()
/// (check_model.hpp) runs this at each of its states and names the entries.
/// Allocates; meant for tests and model development. Throws std::invalid_argument on wrong sizes.
DerivativeCheckReport checkDerivatives(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v,
                                       double t, const DerivativeCheckOptions& options = {});

}  // namespace kktdae

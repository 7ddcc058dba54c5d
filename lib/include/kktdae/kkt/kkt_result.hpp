#pragma once
/// @file
/// What one acceleration solve reports besides q̈ and λ (which stay in the workspace).

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace kktdae {

/// The outcome of one KKT solve (KktResult::status).
enum class KktStatus {
  Ok,              ///< solved
  Singular,        ///< the factorization broke down (J rank-deficient, or M not SPD)
  IllConditioned,  ///< factorized, but rcond < KktOptions::min_rcond
  NonFinite,       ///< NaN/Inf in the inputs (state, model output) or in the solution
};

/// "ok", "singular", "ill-conditioned", "non-finite".
std::string_view toString(KktStatus status);

/// The outcome of one KKT solve: its status, the condition estimate, and what a failure or a
/// rank-deficient answer was. q̈ and λ themselves are in the KktWorkspace.
struct KktResult {
  KktStatus status = KktStatus::Ok;  ///< solved, or why not
  /// Reciprocal condition estimate of the factorized matrix (1 = perfect, 0 = singular).
  double rcond = std::numeric_limits<double>::quiet_NaN();
  /// On failure: constraint rows judged dependent (rank-revealing QR of Jᵀ), or the rows of φ,
  /// J or γ that hold a non-finite value. Empty on success (no allocation on the good path).
  std::vector<int> offending_rows;
  /// On failure: what went wrong, in words. Empty on success.
  std::string message;
  /// True when the system was singular or ill-conditioned and KktOptions::rank_deficiency
  /// (MinimumNorm or Regularize) produced the answer: a successful solve that deserves a warning.
  bool rank_deficient = false;
  /// With rank_deficient: the numerical rank of J M⁻¹ Jᵀ (MinimumNorm: pivots of the pivoted
  /// Cholesky above the threshold; Regularize: −1, not computed). −1 otherwise.
  int rank = -1;

  bool ok() const { return status == KktStatus::Ok; }  ///< status is Ok
};

}  // namespace kktdae

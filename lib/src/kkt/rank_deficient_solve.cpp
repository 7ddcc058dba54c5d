// KktOptions::rank_deficiency: the answer when J M⁻¹ Jᵀ is singular or too ill-conditioned.
#include <algorithm>

#include "kktdae/core/checks.hpp"
#include "kkt_steps.hpp"

namespace kktdae::detail {
namespace {

/// λ = A⁺ b, pivots of A's pivoted Cholesky at or below max(rank_tolerance, min_rcond) of its
/// largest diagonal entry dropped: a direction the options call too ill-conditioned to solve is
/// not solved. Returns the numerical rank.
int minimumNormMultipliers(const KktOptions& options, KktWorkspace& ws) {
  ws.ensureRankDeficientStorage();
  const int rank = ws.pseudo_inverse.factorize(ws.schur, std::max(options.rank_tolerance, options.min_rcond));
  ws.lambda = ws.schur_rhs;
  ws.pseudo_inverse.applyInPlace(ws.lambda);  // rank 0 (J = 0 or worse: no constraint can act): λ = 0
  return rank;
}

}  // namespace

void regularizationOfMatrixRows(const KktOptions& options, const Matrix& a, KktWorkspace& ws) {
  // A matrix's diagonal is strided: bound to a ConstVectorRef it would be copied (allocated).
  ws.ensureRankDeficientStorage();
  for (Eigen::Index i = 0; i < a.rows(); ++i) ws.rank_regularization[i] = a(i, i);
  regularizationOfRows(options, ws.rank_regularization, ws);
}

void regularizationOfRows(const KktOptions& options, ConstVectorRef a_diagonal, KktWorkspace& ws) {
  ws.ensureRankDeficientStorage();
  const double largest = a_diagonal.size() > 0 ? a_diagonal.maxCoeff() : 0.0;
  for (Eigen::Index i = 0; i < a_diagonal.size(); ++i) {
    // A row whose own stiffness is below regularization·max Aⱼⱼ has (nearly) vanished: it is
    // regularized against the largest, as every row was before rows got their own scale.
    const double scale = a_diagonal[i] > options.regularization * largest ? a_diagonal[i] : largest;
    ws.rank_regularization[i] = options.regularization * scale;
  }
}

KktResult solveRankDeficientConstraintSpace(const KktOptions& options, double trigger_rcond, KktWorkspace& ws) {
  if (options.rank_deficiency == RankDeficiencyPolicy::MinimumNorm) {
    const int rank = minimumNormMultipliers(options, ws);
    accelerationsFromMultipliers(ws);
    return acceptedSolve(trigger_rcond, true, rank, ws);
  }
  // Regularize: (A + diag(ε)) λ = b, each εᵢ relative to its own row's Aᵢᵢ.
  regularizationOfMatrixRows(options, ws.schur, ws);
  ws.schur.diagonal() += ws.rank_regularization;
  ws.schur_llt.compute(ws.schur);
  if (ws.schur_llt.info() != Eigen::Success || !(ws.rank_regularization.minCoeff() > 0.0)) {
    return failedSolve(KktStatus::Singular, 0.0,
                       "J M⁻¹ Jᵀ + diag(ε) is not positive definite (largest εᵢ = " +
                           formatDouble(ws.rank_regularization.maxCoeff()) +
                           "): the constraint rows vanish or the model is not finite");
  }
  ws.lambda = ws.schur_llt.solve(ws.schur_rhs);
  refineRegularized(
      [&](const auto& rhs, auto& step) {
        step = rhs;
        ws.schur_llt.solveInPlace(step);
      },
      ws.rank_regularization, ws.lambda, ws);
  accelerationsFromMultipliers(ws);
  return acceptedSolve(trigger_rcond, true, -1, ws);
}

}  // namespace kktdae::detail

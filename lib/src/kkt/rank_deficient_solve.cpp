// KktOptions::rank_deficiency: the answer when J M⁻¹ Jᵀ is singular or too ill-conditioned.
#include <algorithm>

#include "kktdae/core/checks.hpp"
#include "kkt_steps.hpp"
#include "symmetric_eigen.hpp"

namespace kktdae::detail {
namespace {

/// λ = A⁺ b from A = V diag(w) Vᵀ, eigenvalues at or below max(rank_tolerance, min_rcond) · w_max
/// dropped: a direction the options call too ill-conditioned to solve is not solved.
/// Returns the numerical rank; writes the 2-norm rcond w_min⁺ / w_max.
int minimumNormMultipliers(const KktOptions& options, KktWorkspace& ws, double& rcond) {
  ws.ensureRankDeficientStorage();
  ws.eigen_work = ws.schur;
  symmetricEigenJacobi(ws.eigen_work, ws.eigenvectors, ws.eigenvalues);
  const Vector& w = ws.eigenvalues;
  const Matrix& V = ws.eigenvectors;
  const double w_max = w.maxCoeff();
  rcond = w_max > 0.0 ? std::max(w.minCoeff(), 0.0) / w_max : 0.0;
  if (!(w_max > 0.0)) {  // J = 0 (or worse): no constraint can act
    ws.lambda.setZero();
    return 0;
  }
  const double threshold = std::max(options.rank_tolerance, options.min_rcond) * w_max;
  ws.eigen_coefficients.noalias() = V.transpose() * ws.schur_rhs;
  int rank = 0;
  for (int i = 0; i < ws.nc; ++i) {
    if (w[i] > threshold) {
      ws.eigen_coefficients[i] /= w[i];
      ++rank;
    } else {
      ws.eigen_coefficients[i] = 0.0;
    }
  }
  ws.lambda.noalias() = V * ws.eigen_coefficients;
  return rank;
}

}  // namespace

KktResult solveRankDeficientConstraintSpace(const KktOptions& options, double trigger_rcond, KktWorkspace& ws) {
  if (options.rank_deficiency == RankDeficiencyPolicy::MinimumNorm) {
    double rcond = trigger_rcond;
    const int rank = minimumNormMultipliers(options, ws, rcond);
    accelerationsFromMultipliers(ws);
    return acceptedSolve(rcond, true, rank, ws);
  }
  // Regularize: (A + εI) λ = b, ε relative to A's largest diagonal entry (its scale).
  const double epsilon = options.regularization * ws.schur.diagonal().maxCoeff();
  ws.schur.diagonal().array() += epsilon;
  ws.schur_llt.compute(ws.schur);
  if (ws.schur_llt.info() != Eigen::Success || !(epsilon > 0.0)) {
    return failedSolve(KktStatus::Singular, 0.0,
                       "J M⁻¹ Jᵀ + εI is not positive definite (ε = " + formatDouble(epsilon) +
                           "): the constraint rows vanish or the model is not finite");
  }
  ws.lambda = ws.schur_llt.solve(ws.schur_rhs);
  accelerationsFromMultipliers(ws);
  return acceptedSolve(trigger_rcond, true, -1, ws);
}

}  // namespace kktdae::detail

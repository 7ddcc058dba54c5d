#pragma once
// Reciprocal 1-norm condition estimate without allocation (internal header).

#include <Eigen/Core>
#include <cmath>

namespace kktdae::detail {

/// Hager's estimate of ‖A⁻¹‖₁ (the method behind LAPACK's xLACON and Eigen's rcond()), written
/// over caller-owned vectors so that it allocates nothing: at most five pairs of solves with A
/// and Aᵀ. `solve(v)` and `solveTransposed(v)` overwrite v with A⁻¹v and A⁻ᵀv. x, y, z have
/// size n ≥ 1 (dynamic, or fixed for the small paths). Returns the estimate (a lower bound,
/// almost always within a factor 3).
template <class Solve, class SolveTransposed, class WorkVector = Eigen::VectorXd>
double inverseOneNormEstimate(Solve&& solve, SolveTransposed&& solveTransposed, WorkVector& x, WorkVector& y,
                              WorkVector& z) {
  const Eigen::Index n = x.size();
  x.setConstant(1.0 / static_cast<double>(n));
  double estimate = 0.0;
  for (int iteration = 0; iteration < 5; ++iteration) {
    y = x;
    solve(y);
    const double norm = y.template lpNorm<1>();
    if (!std::isfinite(norm)) return norm;
    if (iteration > 0 && norm <= estimate) break;  // no further progress
    estimate = norm;
    for (Eigen::Index i = 0; i < n; ++i) z[i] = y[i] >= 0.0 ? 1.0 : -1.0;
    solveTransposed(z);
    Eigen::Index j = 0;
    const double z_max = z.cwiseAbs().maxCoeff(&j);
    if (iteration > 0 && z_max <= z.dot(x)) break;  // x is a local maximum of ‖A⁻¹x‖₁
    x.setZero();
    x[j] = 1.0;
  }
  return estimate;
}

/// rcond = 1 / (‖A‖₁ ‖A⁻¹‖₁) from the matrix's 1-norm and the estimate above; 0 for a zero matrix.
inline double reciprocalCondition(double matrix_one_norm, double inverse_one_norm) {
  if (!(matrix_one_norm > 0.0) || !(inverse_one_norm > 0.0)) return 0.0;
  if (!std::isfinite(inverse_one_norm)) return 0.0;
  return 1.0 / (matrix_one_norm * inverse_one_norm);
}

/// max_j Σ_i |A_ij|.
template <class Derived>
double oneNorm(const Eigen::MatrixBase<Derived>& A) {
  return A.rows() == 0 ? 0.0 : A.cwiseAbs().colwise().sum().maxCoeff();
}

}  // namespace kktdae::detail

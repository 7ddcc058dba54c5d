// The Schur form in plain loops for 1 ≤ nc ≤ 4 and diagonal M (small_schur.hpp).
//
// Every operation below is the one the general path (schur_solve.cpp) performs through Eigen, in
// the same order, so that both give the same bits: products J M⁻¹ Jᵀ, J M⁻¹ f and Jᵀλ summed
// from zero in index order, Eigen's unblocked Cholesky (LLT.h), its forward substitution by
// columns and backward substitution by dot products (TriangularSolverVector.h), and Hager's
// estimate of condition_estimate.hpp with the same probes. The one order that is not plain
// index order is that of Eigen's vectorized sums of four terms, (a₀ + a₂) + (a₁ + a₃), which
// sumLikeEigen() reproduces (two SSE2 lanes; the library is built without -march=native).
#include "small_schur.hpp"

#include <algorithm>
#include <cmath>

#include "condition_estimate.hpp"

namespace kktdae::detail {
namespace {

// Everything is templated on n = nc so that the compiler unrolls the loops over constraints.

/// A lower-triangular factor or a symmetric matrix, row i column j at a[i][j].
template <int n>
using Small = double[n][n];

/// Σ a_i as Eigen's vectorized reduction of a contiguous vector of n ≤ 4 entries adds them
/// (lpNorm<1>(), colwise().sum(), the row-major matrix–vector kernel).
template <int n>
double sumLikeEigen(const double* a) {
  static_assert(n >= 1 && n <= 4, "orders known for 1 to 4 terms");
  if constexpr (n == 1) return a[0];
  if constexpr (n == 2) return a[0] + a[1];
  if constexpr (n == 3) return (a[0] + a[1]) + a[2];
  if constexpr (n == 4) return (a[0] + a[2]) + (a[1] + a[3]);
}

/// Eigen's unblocked LLT of the lower triangle of A into L; false on a non-positive (or NaN)
/// pivot, where the general path reports the breakdown.
template <int n>
bool choleskyLower(const Small<n>& A, Small<n>& L) {
  for (int k = 0; k < n; ++k) {
    double x = A[k][k];
    if (k > 0) {
      double squared_norm = L[k][0] * L[k][0];
      for (int m = 1; m < k; ++m) squared_norm += L[k][m] * L[k][m];
      x -= squared_norm;
    }
    if (!(x > 0.0)) return false;
    x = std::sqrt(x);
    L[k][k] = x;
    for (int j = k + 1; j < n; ++j) {
      double a = A[j][k];
      if (k > 0) {
        double c = 0.0;
        for (int m = 0; m < k; ++m) c += L[j][m] * L[k][m];
        a -= c;
      }
      L[j][k] = a / x;
    }
  }
  return true;
}

/// b ← L⁻ᵀ L⁻¹ b: forward substitution by columns, then backward by dot products, skipping the
/// division of a zero entry as Eigen does.
template <int n>
void choleskySolveInPlace(const Small<n>& L, double* b) {
  for (int i = 0; i < n; ++i) {
    if (b[i] != 0.0) {
      b[i] /= L[i][i];
      for (int j = i + 1; j < n; ++j) b[j] -= b[i] * L[j][i];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    if (i + 1 < n) {
      double dot = L[i + 1][i] * b[i + 1];
      for (int s = i + 2; s < n; ++s) dot += L[s][i] * b[s];
      b[i] -= dot;
    }
    if (b[i] != 0.0) b[i] /= L[i][i];
  }
}

template <int n>
double oneNormLikeEigen(const double* v) {
  double magnitudes[n];
  for (int i = 0; i < n; ++i) magnitudes[i] = std::abs(v[i]);
  return sumLikeEigen<n>(magnitudes);
}

/// inverseOneNormEstimate() of condition_estimate.hpp on A = L Lᵀ (symmetric: Aᵀ = A).
template <int n>
double inverseOneNormEstimate(const Small<n>& L) {
  double x[n], y[n], z[n];
  for (int i = 0; i < n; ++i) x[i] = 1.0 / static_cast<double>(n);
  int previous_j = 0;
  double estimate = 0.0;
  for (int iteration = 0; iteration < 5; ++iteration) {
    for (int i = 0; i < n; ++i) y[i] = x[i];
    choleskySolveInPlace<n>(L, y);
    const double norm = oneNormLikeEigen<n>(y);
    if (!std::isfinite(norm)) return norm;
    if (iteration > 0 && norm <= estimate) break;
    estimate = norm;
    for (int i = 0; i < n; ++i) z[i] = y[i] >= 0.0 ? 1.0 : -1.0;
    choleskySolveInPlace<n>(L, z);
    int j = 0;
    double z_max = std::abs(z[0]);
    for (int i = 1; i < n; ++i) {
      if (std::abs(z[i]) > z_max) {
        z_max = std::abs(z[i]);
        j = i;
      }
    }
    // z·x with x = e_{previous j}: the other products are zeros.
    if (iteration > 0 && z_max <= z[previous_j]) break;
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    x[j] = 1.0;
    previous_j = j;
  }
  return estimate;
}

/// The solve for nc = n; false where solveSchurSmall() says.
template <int n>
bool solveSmall(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws, double& rcond) {
  const int nq = ws.nq;
  const double* J = ws.J.data();  // column-major: J(i, k) = J[i + k n]
  const double* inverse_mass = ws.inverse_mass_diagonal.data();
  const double* force = ws.force.data();

  // One pass over the coordinates for A = J (M⁻¹Jᵀ) and J M⁻¹ f; each entry is still summed
  // over k in index order, from zero, with M⁻¹Jᵀ and M⁻¹f formed entry by entry as the general
  // path stores them.
  Small<n> A = {};
  double J_free_acceleration[n] = {};
  for (int k = 0; k < nq; ++k) {
    const double* J_k = J + k * n;  // column k of J
    double inverse_mass_jt[n];
    for (int j = 0; j < n; ++j) inverse_mass_jt[j] = inverse_mass[k] * J_k[j];
    const double free_acceleration = inverse_mass[k] * force[k];
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) A[i][j] += J_k[i] * inverse_mass_jt[j];
      J_free_acceleration[i] += J_k[i] * free_acceleration;
    }
  }
  // b = −(J M⁻¹ f + γ), then the stabilization terms.
  double* b = ws.schur_rhs.data();
  for (int i = 0; i < n; ++i) b[i] = -(J_free_acceleration[i] + ws.gamma[i]);
  subtractStabilizationTerms(stabilization, ws.phi, ws.phi_dot, ws.schur_rhs);

  Small<n> L;
  if (!choleskyLower<n>(A, L)) return false;
  rcond = 1.0;
  if (options.estimate_condition) {
    double column_sums[n];
    for (int j = 0; j < n; ++j) {
      double magnitudes[n];
      for (int i = 0; i < n; ++i) magnitudes[i] = std::abs(A[i][j]);
      column_sums[j] = sumLikeEigen<n>(magnitudes);
    }
    double one_norm = column_sums[0];
    for (int j = 1; j < n; ++j) one_norm = std::max(one_norm, column_sums[j]);
    rcond = reciprocalCondition(one_norm, inverseOneNormEstimate<n>(L));
    if (!(rcond >= options.min_rcond)) return false;  // ill-conditioned: the general path decides
  }

  double* lambda = ws.lambda.data();
  for (int i = 0; i < n; ++i) lambda[i] = b[i];
  choleskySolveInPlace<n>(L, lambda);

  // q̈ = (Jᵀλ + f) / m, divided rather than multiplied by 1/m, as seed 000 does.
  double* qdd = ws.qdd.data();
  const double* mass = ws.mass_diagonal.data();
  bool finite = true;
  for (int k = 0; k < nq; ++k) {
    double terms[n];
    for (int i = 0; i < n; ++i) terms[i] = J[i + k * n] * lambda[i] + 0.0;
    const double jt_lambda = n == 1 ? 0.0 + terms[0] : sumLikeEigen<n>(terms);
    qdd[k] = (jt_lambda + force[k]) / mass[k];
    finite = finite && std::isfinite(qdd[k]);
  }
  for (int i = 0; i < n; ++i) finite = finite && std::isfinite(lambda[i]);
  if (!finite) return false;

  return true;
}

/// φ̇ = J v + ∂φ/∂t for nc = n, each row summed over k in index order from zero.
template <int n>
void constraintRate(const double* J, const double* v, int nq, const double* phi_t, double* phi_dot) {
  double sums[n] = {};
  for (int k = 0; k < nq; ++k) {
    for (int i = 0; i < n; ++i) sums[i] += J[i + k * n] * v[k];
  }
  for (int i = 0; i < n; ++i) phi_dot[i] = sums[i] + phi_t[i];
}

}  // namespace

bool solveSchurSmall(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws,
                     KktResult& result) {
  const int nc = ws.nc, nq = ws.nq;
  // Beyond nq + 2nc = 20 Eigen multiplies J by M⁻¹Jᵀ with its blocked kernel, whose sums run in
  // another order: the general path keeps those sizes.
  if (nc < 1 || nc > kSmallSchurMaxConstraints || nq + 2 * nc >= 20 ||
      ws.mass_structure == MassStructure::General || stabilization.kind == Stabilization::Kind::Soft) {
    return false;
  }
  double rcond = 1.0;
  bool solved = false;
  switch (nc) {
    case 1: solved = solveSmall<1>(stabilization, options, ws, rcond); break;
    case 2: solved = solveSmall<2>(stabilization, options, ws, rcond); break;
    case 3: solved = solveSmall<3>(stabilization, options, ws, rcond); break;
    case 4: solved = solveSmall<4>(stabilization, options, ws, rcond); break;
    default: break;
  }
  if (!solved) return false;
  result = KktResult{};
  result.rcond = rcond;
  return true;
}

bool constraintRateSmall(ConstVectorRef v, KktWorkspace& ws) {
  const int nc = ws.nc, nq = ws.nq;
  if (nc < 1 || nc > kSmallSchurMaxConstraints || nq >= 128) return false;  // 128: Eigen's column blocks
  switch (nc) {
    case 1: constraintRate<1>(ws.J.data(), v.data(), nq, ws.phi_t.data(), ws.phi_dot.data()); break;
    case 2: constraintRate<2>(ws.J.data(), v.data(), nq, ws.phi_t.data(), ws.phi_dot.data()); break;
    case 3: constraintRate<3>(ws.J.data(), v.data(), nq, ws.phi_t.data(), ws.phi_dot.data()); break;
    default: constraintRate<4>(ws.J.data(), v.data(), nq, ws.phi_t.data(), ws.phi_dot.data()); break;
  }
  return true;
}

}  // namespace kktdae::detail

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
#include <cstdint>
#include <utility>

#include "all_finite.hpp"
#include "condition_estimate.hpp"
#include "kkt_steps.hpp"

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

/// ‖A⁻¹‖₁ of a 2×2 SPD A = L Lᵀ: the larger 1-norm of A⁻¹'s two columns, each from the
/// triangular solves Hager's iteration ends with (it is exact for 2×2, so it returns one of these
/// two norms, computed the same way, or in a near tie the average-probe norm, which differs in
/// the last bits). Two solves instead of its four, no sign vectors, no branches on progress.
double inverseOneNormExact2(const Small<2>& L) {
  // choleskySolveInPlace<2>() on e₀ and e₁ written out: the same operations without its tests
  // for zero entries (dividing a zero by L's positive diagonal leaves it as it is).
  const double l00 = L[0][0], l10 = L[1][0], l11 = L[1][1];
  double first[2], second[2];
  first[0] = 1.0 / l00;
  first[1] = ((0.0 - first[0] * l10) / l11) / l11;
  first[0] = (first[0] - l10 * first[1]) / l00;
  second[1] = (1.0 / l11) / l11;
  second[0] = (0.0 - l10 * second[1]) / l00;
  const double first_norm = oneNormLikeEigen<2>(first), second_norm = oneNormLikeEigen<2>(second);
  if (!std::isfinite(first_norm)) return first_norm;
  if (!std::isfinite(second_norm)) return second_norm;
  return std::max(first_norm, second_norm);
}

/// b = −(J M⁻¹ f + γ) − (2α φ̇ + β² φ) into ws.schur_rhs, and constraint_target = −γ − (2α φ̇ +
/// β² φ), which evaluateModelTerms leaves to the small path (OutputCheck::Deferred): the
/// operations of subtractStabilizationTerms() (Baumgarte or none; soft constraints never come
/// here) inline. Returns the finiteness carries of γ, φ and φ̇, which it reads anyway.
template <int n>
std::uint64_t formRightHandSide(const double (&J_free_acceleration)[n], const Stabilization& stabilization,
                                KktWorkspace& ws) {
  const double* gamma = ws.gamma.data();
  const double* phi = ws.phi.data();
  const double* phi_dot = ws.phi_dot.data();
  double* b = ws.schur_rhs.data();
  double* target = ws.constraint_target.data();
  const bool baumgarte = stabilization.kind == Stabilization::Kind::Baumgarte;
  const double damping = 2.0 * stabilization.alpha, stiffness = stabilization.beta * stabilization.beta;
  std::uint64_t carries = 0;
  for (int i = 0; i < n; ++i) {
    b[i] = -(J_free_acceleration[i] + gamma[i]);
    target[i] = -gamma[i];
    if (baumgarte) {
      // Once into a local: b and target are stores the compiler cannot prove apart from φ, φ̇.
      const double stabilization_term = damping * phi_dot[i] + stiffness * phi[i];
      b[i] -= stabilization_term;
      target[i] -= stabilization_term;
    }
    carries |= finiteCarry(gamma[i]) | finiteCarry(phi[i]) | finiteCarry(phi_dot[i]);
  }
  return carries;
}

/// From A = J M⁻¹ Jᵀ and b (ws.schur_rhs) on: Cholesky, the condition estimate, λ into ws.lambda
/// and q̈ = (Jᵀλ + f) / m into ws.qdd and, when `qdd_copy` is not null, also there (the caller's
/// vector, so that it needs no second pass). False where solveSchurSmall() says.
template <int n, int fixed_nq>
bool factorizeAndSolve(const Small<n>& A, const KktOptions& options, KktWorkspace& ws, double* qdd_copy,
                       double& rcond) {
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
    // Hager's estimate of ‖A⁻¹‖₁ (condition_estimate.hpp), shortened where its answer is known:
    // for nc = 1 its second probe is its first, so it returns the first solve's norm (the same
    // bits); for nc = 2 it is exact, so the exact norm from both columns of A⁻¹ catches what it
    // catches (equal but in the last bits of near ties: tests/unit/kkt/small_schur_test.cpp).
    double inverse_one_norm;
    if constexpr (n == 1) {
      double y[1] = {1.0};
      choleskySolveInPlace<1>(L, y);
      inverse_one_norm = std::abs(y[0]);
    } else if constexpr (n == 2) {
      inverse_one_norm = inverseOneNormExact2(L);
    } else {
      inverse_one_norm = inverseOneNormEstimate<n>(L);
    }
    rcond = reciprocalCondition(one_norm, inverse_one_norm);
    if (!(rcond >= options.min_rcond)) return false;  // ill-conditioned: the general path decides
  }

  const double* b = ws.schur_rhs.data();
  double* lambda = ws.lambda.data();
  for (int i = 0; i < n; ++i) lambda[i] = b[i];
  choleskySolveInPlace<n>(L, lambda);

  // q̈ = (Jᵀλ + f) / m, divided rather than multiplied by 1/m, as seed 000 does.
  const int nq = fixed_nq > 0 ? fixed_nq : ws.nq;
  const double* J = ws.J.data();
  const double* force = ws.force.data();
  double* qdd = ws.qdd.data();
  const double* mass = ws.mass_diagonal.data();
  std::uint64_t solution_carries = 0;
  for (int k = 0; k < nq; ++k) {
    double terms[n];
    for (int i = 0; i < n; ++i) terms[i] = J[i + k * n] * lambda[i] + 0.0;
    const double jt_lambda = n == 1 ? 0.0 + terms[0] : sumLikeEigen<n>(terms);
    qdd[k] = (jt_lambda + force[k]) / mass[k];
    if (qdd_copy != nullptr) qdd_copy[k] = qdd[k];
    solution_carries |= finiteCarry(qdd[k]);
  }
  for (int i = 0; i < n; ++i) solution_carries |= finiteCarry(lambda[i]);
  return carriesFinite(solution_carries);
}

/// The solve for nc = n on evaluated terms; false where solveSchurSmall() says.
/// `outputs_finite` is false when a model output it reads (f, J, γ, φ, φ̇) is NaN or ±∞: then
/// nothing else is to be trusted.
template <int n>
bool solveSmall(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws, double& rcond,
                bool& outputs_finite) {
  const int nq = ws.nq;
  const double* J = ws.J.data();  // column-major: J(i, k) = J[i + k n]
  const double* inverse_mass = ws.inverse_mass_diagonal.data();
  const double* force = ws.force.data();

  // One pass over the coordinates for A = J (M⁻¹Jᵀ) and J M⁻¹ f; each entry is still summed
  // over k in index order, from zero, with M⁻¹Jᵀ and M⁻¹f formed entry by entry as the general
  // path stores them. The model's outputs are checked for NaN/Inf here, where they are read
  // anyway, instead of in evaluateModelTerms' separate passes (all_finite.hpp's carries, one
  // test after the loops).
  Small<n> A = {};
  double J_free_acceleration[n] = {};
  std::uint64_t carries = 0;
  for (int k = 0; k < nq; ++k) {
    const double* J_k = J + k * n;  // column k of J
    carries |= finiteCarry(force[k]);
    for (int i = 0; i < n; ++i) carries |= finiteCarry(J_k[i]);
    double inverse_mass_jt[n];
    for (int j = 0; j < n; ++j) inverse_mass_jt[j] = inverse_mass[k] * J_k[j];
    const double free_acceleration = inverse_mass[k] * force[k];
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) A[i][j] += J_k[i] * inverse_mass_jt[j];
      J_free_acceleration[i] += J_k[i] * free_acceleration;
    }
  }
  carries |= formRightHandSide<n>(J_free_acceleration, stabilization, ws);
  outputs_finite = carriesFinite(carries);
  if (!outputs_finite) return false;
  return factorizeAndSolve<n, 0>(A, options, ws, nullptr, rcond);
}

/// A diagonal M from the model into ws (mass_diagonal, inverse_mass_diagonal), unless it is a
/// constant one already there; false, leaving the failure to the general path, when an entry is
/// not positive or not finite. The operations of evaluateModelTerms().
bool refreshDiagonalMass(const ConstrainedSystem& system, ConstVectorRef q, KktWorkspace& ws) {
  if (ws.mass_structure == MassStructure::ConstantDiagonal && ws.constant_mass_ready) return true;
  system.massDiagonal(q, ws.mass_diagonal);
  if (ws.nq > 0 && (!(ws.mass_diagonal.minCoeff() > 0.0) || !allFinite(ws.mass_diagonal))) return false;
  ws.inverse_mass_diagonal = ws.mass_diagonal.cwiseInverse();
  ws.constant_mass_ready = true;
  return true;
}

/// A whole acceleration solve for nc = n (SmallSchurSolver): the model call, then one pass over
/// the coordinates that forms f = −h, φ̇ = J q̇ + ∂φ/∂t, A and J M⁻¹ f and checks every number it
/// reads, then factorizeAndSolve(). The sums are those of evaluateModelTerms(),
/// constraintRate() and solveSmall(), each in its own order, so the bits are theirs.
template <int n, int fixed_nq>
bool solveWhole(const ConstrainedSystem& system, double t, ConstVectorRef q, ConstVectorRef v,
                const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws, VectorRef qdd_out,
                KktResult& result) {
  const int nq = fixed_nq > 0 ? fixed_nq : ws.nq;
  if (q.size() != nq || v.size() != nq || qdd_out.size() != nq) return false;  // the general path throws
  const double* x = q.data();
  const double* w = v.data();
  // The model never sees a non-finite state (the general path reports it without calling it).
  std::uint64_t state_carries = 0;
  for (int k = 0; k < nq; ++k) state_carries |= finiteCarry(x[k]) | finiteCarry(w[k]);
  if (!carriesFinite(state_carries)) return false;
  if (!refreshDiagonalMass(system, q, ws)) return false;

  Eigen::Map<Vector> no_values(nullptr, 0);
  ModelTermsOutput terms{ws.h, ws.phi, ws.J, no_values, ws.gamma, ws.phi_t};
  system.evaluateTerms(q, v, t, terms);

  const double* J = ws.J.data();  // column-major: J(i, k) = J[i + k n]
  const double* h = ws.h.data();
  const double* inverse_mass = ws.inverse_mass_diagonal.data();
  double* force = ws.force.data();
  Small<n> A = {};
  double J_free_acceleration[n] = {};
  double rate[n] = {};
  std::uint64_t carries = 0;
  for (int k = 0; k < nq; ++k) {
    const double* J_k = J + k * n;
    const double f_k = -h[k];
    force[k] = f_k;
    carries |= finiteCarry(f_k);
    for (int i = 0; i < n; ++i) carries |= finiteCarry(J_k[i]);
    double inverse_mass_jt[n];
    for (int j = 0; j < n; ++j) inverse_mass_jt[j] = inverse_mass[k] * J_k[j];
    const double free_acceleration = inverse_mass[k] * f_k;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) A[i][j] += J_k[i] * inverse_mass_jt[j];
      J_free_acceleration[i] += J_k[i] * free_acceleration;
      rate[i] += J_k[i] * w[k];
    }
  }
  const double* phi_t = ws.phi_t.data();
  double* phi_dot = ws.phi_dot.data();
  for (int i = 0; i < n; ++i) phi_dot[i] = rate[i] + phi_t[i];
  carries |= formRightHandSide<n>(J_free_acceleration, stabilization, ws);
  if (!carriesFinite(carries)) return false;  // the general path names the output

  double rcond = 1.0;
  if (!factorizeAndSolve<n, fixed_nq>(A, options, ws, qdd_out.data(), rcond)) return false;
  result.status = KktStatus::Ok;
  result.rcond = rcond;
  result.offending_rows.clear();
  result.message.clear();
  result.rank_deficient = false;
  result.rank = -1;
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

/// nq = 1 … kSmallSchurMaxFixedCoordinates get a solveWhole() with nq fixed at compile time
/// (loops over the coordinates unrolled, J's columns at constant offsets); 0 stands for any nq.
constexpr int kSmallSchurMaxFixedCoordinates = 12;
using FixedSizes = std::make_integer_sequence<int, kSmallSchurMaxFixedCoordinates + 1>;

/// solveWhole<n, nq> for a fixed nq in `sizes`, else solveWhole<n, 0> (nq at run time).
template <int n, int... sizes>
SmallSchurSolver wholeSolverFor(int nq, std::integer_sequence<int, sizes...>) {
  SmallSchurSolver solver = &solveWhole<n, 0>;
  ((nq == sizes ? (solver = &solveWhole<n, sizes>, 0) : 0), ...);
  return solver;
}

}  // namespace

double inverseOneNorm2x2(double l00, double l10, double l11) {
  const Small<2> L = {{l00, 0.0}, {l10, l11}};
  return inverseOneNormExact2(L);
}

bool smallSchurTakes(const Stabilization& stabilization, const KktWorkspace& ws) {
  const int nc = ws.nc, nq = ws.nq;
  // Beyond nq + 2nc = 20 Eigen multiplies J by M⁻¹Jᵀ with its blocked kernel, whose sums run in
  // another order: the general path keeps those sizes.
  return !ws.sparse && nc >= 1 && nc <= kSmallSchurMaxConstraints && nq + 2 * nc < 20 &&
         ws.mass_structure != MassStructure::General && stabilization.kind != Stabilization::Kind::Soft;
}

bool solveSchurSmall(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws,
                     KktResult& result) {
  if (!smallSchurTakes(stabilization, ws)) return false;
  double rcond = 1.0;
  bool solved = false, outputs_finite = true;
  switch (ws.nc) {
    case 1: solved = solveSmall<1>(stabilization, options, ws, rcond, outputs_finite); break;
    case 2: solved = solveSmall<2>(stabilization, options, ws, rcond, outputs_finite); break;
    case 3: solved = solveSmall<3>(stabilization, options, ws, rcond, outputs_finite); break;
    case 4: solved = solveSmall<4>(stabilization, options, ws, rcond, outputs_finite); break;
    default: break;
  }
  if (!outputs_finite) {  // the failure evaluateModelTerms would have reported
    result = checkModelOutputs(ws);
    return true;
  }
  if (!solved) return false;
  result = KktResult{};
  result.rcond = rcond;
  return true;
}

SmallSchurSolver smallSchurSolverFor(const Stabilization& stabilization, const KktOptions& options,
                                     const KktWorkspace& ws) {
  // Inputs (nu > 0) need S and Sᵀu, which only the general evaluation forms.
  if (options.form != KktForm::Schur || ws.nu != 0 || !smallSchurTakes(stabilization, ws)) return nullptr;
  switch (ws.nc) {
    case 1: return wholeSolverFor<1>(ws.nq, FixedSizes{});
    case 2: return wholeSolverFor<2>(ws.nq, FixedSizes{});
    case 3: return wholeSolverFor<3>(ws.nq, FixedSizes{});
    case 4: return wholeSolverFor<4>(ws.nq, FixedSizes{});
    default: return nullptr;
  }
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

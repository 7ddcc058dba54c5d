#include "small_block.hpp"

#include <Eigen/LU>
#include <limits>

#include "condition_estimate.hpp"
#include "kkt_steps.hpp"

namespace kktdae::detail {

namespace {

/// The general path's test (block_solve.cpp): every |U_ii| above ε n max |U_ii|. A NaN fails it.
template <class Lu>
bool nonZeroPivots(const Lu& lu, int n) {
  const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
  return pivots.minCoeff() > std::numeric_limits<double>::epsilon() * n * pivots.maxCoeff();
}

/// x ← A⁻¹ b for A = P⁻¹ L U, b given in x: the arithmetic of Eigen's dynamic-size
/// PartialPivLU::solve() for n ≤ 8 (one panel of its column-major triangular kernels, which skip
/// a column whose unknown is zero), so that the small path's q̈ and λ are the general path's to
/// the bit. Eigen's fixed-size solve sums rows instead and differs in the last bits (and in the
/// sign of a zero λ, which the apps print).
template <class Lu, class FixedVector>
void luSolveInPlace(const Lu& lu, FixedVector& x) {
  constexpr int n = FixedVector::RowsAtCompileTime;
  const auto& a = lu.matrixLU();
  const auto& indices = lu.permutationP().indices();
  FixedVector b = x;
  for (int i = 0; i < n; ++i) x[indices[i]] = b[i];
  for (int i = 0; i < n; ++i) {  // L, unit diagonal, column by column
    if (x[i] == 0.0) continue;
    for (int r = i + 1; r < n; ++r) x[r] -= x[i] * a(r, i);
  }
  for (int i = n - 1; i >= 0; --i) {  // U, from the last column
    if (x[i] == 0.0) continue;
    x[i] /= a(i, i);
    for (int r = 0; r < i; ++r) x[r] -= x[i] * a(r, i);
  }
}

template <int N>
bool solveFixed(const KktOptions& options, const Eigen::Matrix<double, N, N>& block,
                const Eigen::Matrix<double, N, 1>& rhs, KktWorkspace& ws, KktResult& result) {
  using FixedMatrix = Eigen::Matrix<double, N, N>;
  using FixedVector = Eigen::Matrix<double, N, 1>;
  const Eigen::PartialPivLU<FixedMatrix> lu(block);
  if (!nonZeroPivots(lu, N)) return false;
  double rcond = 1.0;
  if (options.estimate_condition) {
    FixedVector scratch;
    auto solve = [&](FixedVector& v) { luSolveInPlace(lu, v); };
    // Aᵀ = Uᵀ Lᵀ P, as the general path applies it (its row sums may round differently: the
    // estimate agrees to round-off).
    auto solveTransposed = [&](FixedVector& v) {
      lu.matrixLU().template triangularView<Eigen::Upper>().transpose().solveInPlace(v);
      lu.matrixLU().template triangularView<Eigen::UnitLower>().transpose().solveInPlace(v);
      scratch.noalias() = lu.permutationP().transpose() * v;
      v = scratch;
    };
    FixedVector x, y, z;
    rcond = reciprocalCondition(oneNorm(block), inverseOneNormEstimate(solve, solveTransposed, x, y, z));
    if (options.rank_deficiency != RankDeficiencyPolicy::Fail && !(rcond >= options.min_rcond)) return false;
  }
  FixedVector solution = rhs;
  luSolveInPlace(lu, solution);
  ws.qdd = solution.head(ws.nq);
  ws.lambda = solution.tail(ws.nc);
  result = finishSolve(rcond, options, ws);
  return true;
}

/// The assembled ws.block and ws.block_rhs at the fixed size.
template <int N>
bool solveAssembled(const KktOptions& options, KktWorkspace& ws, KktResult& result) {
  const Eigen::Matrix<double, N, N> block = ws.block;
  const Eigen::Matrix<double, N, 1> rhs = ws.block_rhs;
  return solveFixed<N>(options, block, rhs, ws, result);
}

/// [M −Jᵀ; J R] and [f; target] written entry by entry into stack matrices: the numbers
/// solveBlock() copies into ws.block and ws.block_rhs (−Jᵀ is exact), without the dynamic-size
/// block expressions.
template <int N>
bool solveFromTerms(bool soft, const KktOptions& options, KktWorkspace& ws, KktResult& result) {
  const int nq = ws.nq, nc = ws.nc;
  Eigen::Matrix<double, N, N> block;
  Eigen::Matrix<double, N, 1> rhs;
  block.setZero();
  if (ws.mass_structure == MassStructure::General) {
    const double* M = ws.M.data();
    for (int j = 0; j < nq; ++j) {
      for (int i = 0; i < nq; ++i) block(i, j) = M[j * nq + i];
    }
  } else {
    const double* diagonal = ws.mass_diagonal.data();
    for (int i = 0; i < nq; ++i) block(i, i) = diagonal[i];
  }
  const double* J = ws.J.data();  // column-major nc × nq
  for (int j = 0; j < nq; ++j) {
    for (int i = 0; i < nc; ++i) {
      const double entry = J[j * nc + i];
      block(nq + i, j) = entry;
      block(j, nq + i) = -entry;  // −0.0 for a zero entry, as −Jᵀ gives
    }
  }
  if (soft) {
    const double* R = ws.regularization.data();
    for (int i = 0; i < nc; ++i) block(nq + i, nq + i) = R[i];
  }
  const double* force = ws.force.data();
  const double* target = ws.constraint_target.data();
  for (int i = 0; i < nq; ++i) rhs[i] = force[i];
  for (int i = 0; i < nc; ++i) rhs[nq + i] = target[i];
  return solveFixed<N>(options, block, rhs, ws, result);
}

}  // namespace

bool smallBlockTakes(const KktWorkspace& ws) {
  const int n = ws.nq + ws.nc;
  return !ws.sparse && n >= 2 && n <= kSmallBlockMaxSize;
}

bool solveBlockSmall(const KktOptions& options, KktWorkspace& ws, KktResult& result) {
  if (!smallBlockTakes(ws)) return false;
  switch (ws.nq + ws.nc) {
    case 2:
      return solveAssembled<2>(options, ws, result);
    case 3:
      return solveAssembled<3>(options, ws, result);
    case 4:
      return solveAssembled<4>(options, ws, result);
    case 5:
      return solveAssembled<5>(options, ws, result);
    case 6:
      return solveAssembled<6>(options, ws, result);
    default:
      return false;
  }
}

bool solveBlockSmallFromTerms(bool soft, const KktOptions& options, KktWorkspace& ws, KktResult& result) {
  if (!smallBlockTakes(ws)) return false;
  switch (ws.nq + ws.nc) {
    case 2:
      return solveFromTerms<2>(soft, options, ws, result);
    case 3:
      return solveFromTerms<3>(soft, options, ws, result);
    case 4:
      return solveFromTerms<4>(soft, options, ws, result);
    case 5:
      return solveFromTerms<5>(soft, options, ws, result);
    case 6:
      return solveFromTerms<6>(soft, options, ws, result);
    default:
      return false;
  }
}

}  // namespace kktdae::detail

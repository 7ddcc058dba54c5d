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
bool solveFixed(const KktOptions& options, KktWorkspace& ws, KktResult& result) {
  using FixedMatrix = Eigen::Matrix<double, N, N>;
  using FixedVector = Eigen::Matrix<double, N, 1>;
  const FixedMatrix block = ws.block;
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
  FixedVector solution = ws.block_rhs;
  luSolveInPlace(lu, solution);
  ws.qdd = solution.head(ws.nq);
  ws.lambda = solution.tail(ws.nc);
  result = finishSolve(rcond, options, ws);
  return true;
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
      return solveFixed<2>(options, ws, result);
    case 3:
      return solveFixed<3>(options, ws, result);
    case 4:
      return solveFixed<4>(options, ws, result);
    case 5:
      return solveFixed<5>(options, ws, result);
    case 6:
      return solveFixed<6>(options, ws, result);
    default:
      return false;
  }
}

}  // namespace kktdae::detail

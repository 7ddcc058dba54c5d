#include <limits>

#include "kktdae/core/checks.hpp"

#include "condition_estimate.hpp"
#include "dependent_rows.hpp"
#include "kkt_steps.hpp"
#include "null_space_mass.hpp"
#include "small_block.hpp"

namespace kktdae::detail {

namespace {

/// diag(J M⁻¹ Jᵀ) without forming the product: what soft constraints scale R by. A general M's
/// Cholesky factor is already in ws.mass_llt (solveBlock checks M with it).
void constraintSpaceDiagonal(KktWorkspace& ws) {
  if (ws.mass_structure == MassStructure::General) {
    ws.inverse_mass_jt = ws.J.transpose();
    ws.mass_llt.solveInPlace(ws.inverse_mass_jt);
    ws.constraint_diagonal = (ws.J.transpose().cwiseProduct(ws.inverse_mass_jt)).colwise().sum().transpose();
  } else {
    // Coefficient-wise: a matrix–vector product with cwiseAbs2() would evaluate it into a
    // temporary (an allocation per solve).
    ws.constraint_diagonal =
        (ws.J.array().square().rowwise() * ws.inverse_mass_diagonal.transpose().array()).rowwise().sum().matrix();
  }
}

/// LU never reports breakdown and Eigen's estimator returns garbage on an exactly zero pivot
/// (its probe solve overflows to inf − inf), so U's diagonal is looked at first.
bool hasNonZeroPivots(const KktWorkspace& ws) {
  const auto pivots = ws.block_lu.matrixLU().diagonal().cwiseAbs();
  const double largest = pivots.maxCoeff();
  return pivots.minCoeff() > std::numeric_limits<double>::epsilon() * (ws.nq + ws.nc) * largest;
}

double blockConditionEstimate(KktWorkspace& ws) {
  // block_solution is free until the real solve: the probes go through it (no aliasing).
  auto solve = [&](Vector& v) {
    ws.block_solution = ws.block_lu.solve(v);
    v = ws.block_solution;
  };
  // Aᵀ = Uᵀ Lᵀ P: Eigen's lu.transpose().solve() allocates, these three steps do not.
  auto solveTransposed = [&](Vector& v) {
    ws.block_lu.matrixLU().triangularView<Eigen::Upper>().transpose().solveInPlace(v);
    ws.block_lu.matrixLU().triangularView<Eigen::UnitLower>().transpose().solveInPlace(v);
    ws.block_solution.noalias() = ws.block_lu.permutationP().transpose() * v;
    v = ws.block_solution;
  };
  auto& work = ws.block_condition;
  return reciprocalCondition(oneNorm(ws.block), inverseOneNormEstimate(solve, solveTransposed, work.x, work.y, work.z));
}

KktResult massNotPositiveDefinite() {
  return failedSolve(KktStatus::Singular, 0.0, "mass matrix M is not positive definite (Cholesky failed)");
}

/// What needs M⁻¹ (soft constraints' R, the rank-deficiency policies) refuses an M that is
/// positive definite only on null(J), naming what asked.
KktResult singularMassRefused(const char* what) {
  return failedSolve(KktStatus::Singular, 0.0,
                     std::string("mass matrix M is singular (positive definite only on null(J)): ") + what +
                         " needs M⁻¹; the plain block form (no soft constraints, RankDeficiencyPolicy::Fail) "
                         "solves this M");
}

/// The block form's answer under KktOptions::rank_deficiency. Regularize stays in block form,
/// [M −Jᵀ; J R + εI]; MinimumNorm needs the eigen-decomposition of J M⁻¹ Jᵀ, so it goes
/// through the constraint space (the answer is the same: q̈ is unique, λ is the shortest).
KktResult solveBlockRankDeficient(const Stabilization& stabilization, const KktOptions& options,
                                  double trigger_rcond, KktWorkspace& ws) {
  if (ws.mass_singular) return singularMassRefused("RankDeficiencyPolicy (J M⁻¹ Jᵀ)");
  if (options.rank_deficiency == RankDeficiencyPolicy::MinimumNorm) {
    if (!formConstraintSpaceSystem(stabilization, ws)) return massNotPositiveDefinite();
    return solveRankDeficientConstraintSpace(options, trigger_rcond, ws);
  }
  constraintSpaceDiagonal(ws);
  regularizationOfRows(options, ws.constraint_diagonal, ws);
  ws.block.bottomRightCorner(ws.nc, ws.nc).diagonal() += ws.rank_regularization;
  ws.block_constant_part_ready = false;  // the corner is no longer the constant zero block
  ws.block_lu.compute(ws.block);
  if (!(ws.rank_regularization.minCoeff() > 0.0) || !hasNonZeroPivots(ws)) {
    return failedSolve(KktStatus::Singular, 0.0,
                       "[M −Jᵀ; J diag(ε)] is singular (largest εᵢ = " +
                           formatDouble(ws.rank_regularization.maxCoeff()) +
                           "): the constraint rows vanish or the model is not finite");
  }
  ws.block_solution = ws.block_lu.solve(ws.block_rhs);
  refineRegularized([&](const auto& rhs, auto& step) { step = ws.block_lu.solve(rhs); }, ws.rank_regularization,
                    ws.block_solution, ws);
  ws.qdd = ws.block_solution.head(ws.nq);
  ws.lambda = ws.block_solution.tail(ws.nc);
  return acceptedSolve(trigger_rcond, true, -1, ws);
}

}  // namespace

KktResult solveBlock(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws) {
  const int nq = ws.nq;
  const int nc = ws.nc;
  ws.mass_singular = false;
  if (ws.mass_structure == MassStructure::General) {
    // LU factorizes [M −Jᵀ; J 0] with an indefinite M without complaint, and the run goes on
    // with wrong accelerations until something blows up; M(q) may lose definiteness at any q.
    // A Cholesky of M (n³/6, beside the LU's (n + nc)³/3) settles the usual case. An M that
    // fails it may still be positive definite on null(J) (Euler parameters: M = 4GᵀJ̄G is
    // singular along p, which the normalization row's gradient covers); the block matrix is then
    // nonsingular and its solution is the motion, so only ZᵀMZ must be positive definite.
    ws.mass_llt.compute(ws.M);
    if (ws.mass_llt.info() != Eigen::Success) {
      if (!massPositiveOnNullSpace(ws)) {
        return failedSolve(KktStatus::Singular, 0.0,
                           "mass matrix M is not positive definite on null(J) (Cholesky of ZᵀMZ failed, Z a basis "
                           "of null(J)): the block matrix is singular or its motion is not a mechanism's");
      }
      ws.mass_singular = true;
    }
  }
  const bool soft = stabilization.kind == Stabilization::Kind::Soft && nc > 0;
  if (soft && ws.mass_singular) return singularMassRefused("soft constraints' R (diag(J M⁻¹ Jᵀ))");
  if (soft) {
    // [M −Jᵀ; J R]: the constraint row reads J q̈ + R λ = a_ref − γ (docs/stabilization.md).
    constraintSpaceDiagonal(ws);
    softRegularization(stabilization, ws.phi, ws.constraint_diagonal, ws.regularization);
  }
  // Small systems assemble their block on the stack (small_block.hpp); ws.block is filled only
  // for the general path.
  if (KktResult small; solveBlockSmallFromTerms(soft, options, ws, small)) return small;
  ws.ensureBlockStorage();
  // The M block and the zero block change only when M does; PartialPivLU factorizes a copy, so
  // the assembled matrix survives between solves.
  if (ws.mass_structure != MassStructure::ConstantDiagonal || !ws.block_constant_part_ready) {
    if (ws.mass_structure == MassStructure::General) {
      ws.block.topLeftCorner(nq, nq) = ws.M;
    } else {
      ws.block.topLeftCorner(nq, nq).setZero();
      ws.block.topLeftCorner(nq, nq).diagonal() = ws.mass_diagonal;
    }
    ws.block.bottomRightCorner(nc, nc).setZero();
    ws.block_constant_part_ready = true;
  }
  if (soft) {
    ws.block.bottomRightCorner(nc, nc).diagonal() = ws.regularization;
    ws.block_constant_part_ready = false;  // the corner is no longer the constant zero block
  }
  ws.block.topRightCorner(nq, nc) = -ws.J.transpose();
  ws.block.bottomLeftCorner(nc, nq) = ws.J;
  ws.block_rhs.head(nq) = ws.force;
  ws.block_rhs.tail(nc) = ws.constraint_target;

  ws.block_lu.compute(ws.block);
  const bool has_policy = options.rank_deficiency != RankDeficiencyPolicy::Fail;
  if (!hasNonZeroPivots(ws)) {
    if (has_policy) return solveBlockRankDeficient(stabilization, options, 0.0, ws);
    return failedSolve(KktStatus::Singular, 0.0,
                       "block KKT matrix is singular (zero pivot in LU): constraint rows are dependent",
                       dependentConstraintRows(ws.J));
  }
  double rcond = 1.0;
  if (options.estimate_condition) {
    rcond = blockConditionEstimate(ws);
    if (has_policy && !(rcond >= options.min_rcond)) {
      return solveBlockRankDeficient(stabilization, options, rcond, ws);
    }
  }
  ws.block_solution = ws.block_lu.solve(ws.block_rhs);
  ws.qdd = ws.block_solution.head(nq);
  ws.lambda = ws.block_solution.tail(nc);
  return finishSolve(rcond, options, ws);
}

}  // namespace kktdae::detail

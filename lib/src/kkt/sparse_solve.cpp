// The sparse path's two forms (KktPath::Sparse): Schur with the constraint space's sparse LDLᵀ
// of J M⁻¹ Jᵀ, Block with the sparse LU (KLU) of [M −Jᵀ; J R].
#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"
#include "kkt_steps.hpp"

namespace kktdae::detail {
namespace {

/// failedSolve() naming at most one row (−1: none): what a sparse factorization can point at.
KktResult sparseFailure(KktStatus status, double rcond, std::string message, int row) {
  return failedSolve(status, rcond, std::move(message), row >= 0 ? std::vector<int>{row} : std::vector<int>{});
}

std::string illConditionedMessage(double rcond, const KktOptions& options) {
  return "sparse KKT factorization ill-conditioned (pivot ratio " + formatDouble(rcond) + " < min_rcond " +
         formatDouble(options.min_rcond) + ")";
}

/// diag(J M⁻¹ Jᵀ) from J's rows, O(nnz): the scale of the constraint space.
void constraintSpaceDiagonal(const SparseRowMatrix& J, ConstVectorRef inverse_mass, VectorRef diagonal) {
  for (int i = 0; i < J.rows(); ++i) {
    double sum = 0.0;
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      const double value = J.valuePtr()[p];
      sum += value * value * inverse_mass[J.innerIndexPtr()[p]];
    }
    diagonal[i] = sum;
  }
}

}  // namespace

KktResult solveSchurSparse(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws) {
  SparseConstraintSpace& space = *ws.constraint_space;
  if (ws.nc == 0) {
    ws.qdd = ws.force.cwiseQuotient(ws.mass_diagonal);
    return acceptedSolve(1.0, false, -1, ws);
  }
  // A = J M⁻¹ Jᵀ and b = (−γ − stabilization) − J M⁻¹ f in one pass over J's rows (the dense
  // form groups b as −(J M⁻¹ f + γ) − stabilization: the same up to round-off).
  space.assembleSchur(ws.inverse_mass_diagonal, ws.force, ws.constraint_target, ws.constraint_diagonal, ws.schur_rhs);
  if (stabilization.kind == Stabilization::Kind::Soft) {
    softRegularization(stabilization, ws.phi, ws.constraint_diagonal, ws.regularization);
    space.addToDiagonal(ws.regularization);
  }

  bool factorized = space.ldlt.factorize(true);
  double rcond = factorized ? space.ldlt.pivotRatio() : 0.0;
  bool regularized = false;
  if (!factorized || !(rcond >= options.min_rcond)) {
    if (options.rank_deficiency != RankDeficiencyPolicy::Regularize) {
      if (!factorized) {
        return sparseFailure(KktStatus::Singular, 0.0,
                             "J M⁻¹ Jᵀ is not positive definite (zero pivot in the sparse LDLᵀ): constraint rows "
                             "are dependent",
                             space.ldlt.breakdownIndex());
      }
      return sparseFailure(KktStatus::IllConditioned, rcond, illConditionedMessage(rcond, options), -1);
    }
    // The factorization leaves the assembled values untouched: regularize them and refactorize.
    regularizationOfRows(options, ws.constraint_diagonal, ws);
    space.addToDiagonal(ws.rank_regularization);
    if (!space.ldlt.factorize(true)) {
      return sparseFailure(KktStatus::Singular, 0.0, "J M⁻¹ Jᵀ + εI is not positive definite: a constraint row vanishes",
                           space.ldlt.breakdownIndex());
    }
    regularized = true;
  }
  ws.lambda = ws.schur_rhs;
  space.ldlt.solveInPlace(ws.lambda);
  if (regularized) {
    refineRegularized(
        [&](const auto& rhs, auto& step) {
          step = rhs;
          space.ldlt.solveInPlace(step);
        },
        ws.rank_regularization, ws.lambda, ws);
  }
  // q̈ = (f + Jᵀλ) / m, as the dense diagonal path computes it, in one pass over J's columns.
  space.accelerationsFromMultipliers(ws.lambda, ws.force, ws.mass_diagonal, ws.qdd);
  return acceptedSolve(rcond, regularized, -1, ws);
}

KktResult solveBlockSparse(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws) {
  SparseConstraintSpace& space = *ws.constraint_space;
  if (!ws.sparse_block) ws.sparse_block.emplace(space);  // warm-up: pattern analysis once
  SparseBlockSystem& block = *ws.sparse_block;
  const int nq = ws.nq, nc = ws.nc;

  if (stabilization.kind == Stabilization::Kind::Soft && nc > 0) {
    constraintSpaceDiagonal(space.J, ws.inverse_mass_diagonal, ws.constraint_diagonal);
    softRegularization(stabilization, ws.phi, ws.constraint_diagonal, ws.regularization);
  } else {
    ws.regularization.setZero();
  }
  block.assemble(ws.mass_diagonal, space.J, ws.regularization);
  bool factorized = block.factorize();
  double rcond = factorized ? block.pivotRatio() : 0.0;
  bool regularized = false;
  if (!factorized || !(rcond >= options.min_rcond)) {
    if (options.rank_deficiency != RankDeficiencyPolicy::Regularize) {
      if (!factorized) {
        // KLU names a column of its pivoted elimination, often a mass column; the Schur form's
        // LDLᵀ breaks down at a constraint row, which is what the report should name.
        long column = block.singularColumn();
        int row = column >= nq ? static_cast<int>(column - nq) : -1;
        if (row < 0) {
          space.assemble(ws.inverse_mass_diagonal, ws.constraint_diagonal);
          if (!space.ldlt.factorize(true)) row = space.ldlt.breakdownIndex();
        }
        return sparseFailure(KktStatus::Singular, 0.0,
                             "block KKT matrix is singular (zero pivot in the sparse LU): constraint rows are dependent",
                             row);
      }
      return sparseFailure(KktStatus::IllConditioned, rcond, illConditionedMessage(rcond, options), -1);
    }
    // [M −Jᵀ; J R + diag(ε)], εᵢ relative to (J M⁻¹ Jᵀ)ᵢᵢ as in the dense path.
    constraintSpaceDiagonal(space.J, ws.inverse_mass_diagonal, ws.constraint_diagonal);
    regularizationOfRows(options, ws.constraint_diagonal, ws);
    ws.regularization += ws.rank_regularization;
    block.assemble(ws.mass_diagonal, space.J, ws.regularization);
    if (!block.factorize()) {
      return sparseFailure(KktStatus::Singular, 0.0, "[M −Jᵀ; J diag(ε)] is singular: a constraint row vanishes", -1);
    }
    regularized = true;
  }
  block.solution.head(nq) = ws.force;
  block.solution.tail(nc) = ws.constraint_target;
  block.solveInPlace(block.solution);
  if (regularized) {
    refineRegularized(
        [&](const auto& rhs, auto& step) {
          step = rhs;
          block.solveInPlace(step);
        },
        ws.rank_regularization, block.solution, ws);
  }
  ws.qdd = block.solution.head(nq);
  ws.lambda = block.solution.tail(nc);
  return acceptedSolve(rcond, regularized, -1, ws);
}

}  // namespace kktdae::detail

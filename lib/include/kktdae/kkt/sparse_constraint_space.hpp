#pragma once
/// @file
/// The constraint space of a large model with a sparse J and a diagonal M: J in compressed rows
/// with a fixed pattern, and A = J W Jᵀ (W diagonal, W = M⁻¹) assembled into a fixed pattern and
/// factorized by SparseLdlt. Shared by the sparse Schur solve and the sparse projection.

#include <Eigen/SparseCore>
#include <vector>

#include "kktdae/linalg/sparse_ldlt.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// A compressed row-major sparse matrix of doubles (J on the sparse path).
using SparseRowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

/// The sparse path's constraint space: J in compressed form with the model's pattern, and
/// A = J W Jᵀ (W = M⁻¹) analyzed once and factorized by a sparse LDLᵀ at each solve.
struct SparseConstraintSpace {
  /// Reads the model's Jacobian pattern and analyzes A = J W Jᵀ (pattern, ordering, symbolic
  /// factorization). Allocates; O(nnz) for a chain. Throws std::invalid_argument when the model
  /// reports no sparse Jacobian, or its pattern has an index out of range or a repeated entry.
  explicit SparseConstraintSpace(const ConstrainedSystem& system);

  ///@{
  int nq = 0, nc = 0;  ///< the system's sizes
  ///@}
  SparseRowMatrix J;        ///< nc×nq, the model's pattern; values from evaluateJacobian()
  /// J's values in the model's order (jacobianNonZeros()), copied into J's storage; empty when
  /// the model's order is the storage order (rows ascending, columns ascending within a row),
  /// and the model then writes J's values in place.
  Vector model_values;
  std::vector<int> storage_position;  ///< model order → index into J.valuePtr()
  SparseLdlt ldlt;          ///< of A (+ diagonal terms), sized nc

  /// Evaluates J(q, t) into J (values only). Returns false if a value is not finite.
  bool evaluateJacobian(const ConstrainedSystem& system, ConstVectorRef q, double t);
  /// Where a model call (ConstrainedSystem::evaluateTerms()'s `jacobian_values`) writes J's
  /// values: J's storage itself when the model's order is the storage order, else model_values,
  /// which storeJacobianValues() then copies into J. Size jacobianNonZeros().
  Eigen::Map<Vector> jacobianValueTarget();
  /// Copies model_values into J's storage after a model call wrote jacobianValueTarget(); nothing
  /// to do when the model writes J in place. Checks nothing: the caller's φ̇ = J q̇ is not finite
  /// exactly when a value of J is not (∞·0 is NaN).
  void storeJacobianValues();
  /// A = J diag(weights) Jᵀ into ldlt.values(), its diagonal into `diagonal` (nc); weights nq, allocates
  /// nothing. assembleSchur()'s own pass without the rhs, for callers with none (RATTLE, projection, Regularize).
  void assemble(ConstVectorRef weights, VectorRef diagonal);
  /// The Schur form's system in one pass over J's rows: A = J W Jᵀ into ldlt.values(), its
  /// diagonal into `diagonal`, and rhs = target − J W f (W = diag(weights)): with q̈ = W(f + Jᵀλ)
  /// and J q̈ = target, A λ = rhs. Sizes: weights, force nq; target, diagonal, rhs nc. Allocates
  /// nothing.
  void assembleSchur(ConstVectorRef weights, ConstVectorRef force, ConstVectorRef target, VectorRef diagonal,
                     VectorRef rhs);
  /// q̈ = (f + Jᵀλ) / m in one pass over J's columns (no zeroed scatter target, no separate
  /// passes for + f and / m). Sizes: lambda nc; force, mass_diagonal, qdd nq. Allocates nothing.
  void accelerationsFromMultipliers(ConstVectorRef lambda, ConstVectorRef force, ConstVectorRef mass_diagonal,
                                    VectorRef qdd) const;
  /// out = J x + offset, each row's sum from zero over its entries in storage order (the bits of
  /// Eigen's J * x, then + offset): φ̇ = J q̇ + ∂φ/∂t without a zeroed product or an index load
  /// per entry. Sizes: x nq; offset, out nc. Allocates nothing.
  void rowProducts(ConstVectorRef x, ConstVectorRef offset, VectorRef out) const;
  /// Adds d (nc) to A's diagonal in ldlt.values().
  void addToDiagonal(ConstVectorRef d);
  /// Adds the same value to every diagonal entry of A in ldlt.values().
  void addToDiagonal(double value);

 private:
  /// A = J W Jᵀ row by row; with `force` non-null also rhs = target − J W f.
  void assembleRows(ConstVectorRef weights, const double* force, const double* target, VectorRef diagonal,
                    double* rhs);
  /// The per-step loops for a run width fixed at compile time (kWidth = run_width_ > 0) or any
  /// (kWidth = 0); the public methods above dispatch once per call.
  template <int kWidth>
  void assembleRowsAs(ConstVectorRef weights, const double* force, const double* target, VectorRef diagonal,
                      double* rhs);
  template <int kWidth>
  void scatterAs(const double* lambda, const double* force, const double* mass_diagonal, double* qdd) const;
  template <int kWidth>
  void rowProductsAs(const double* x, const double* offset, double* out) const;

  /// The plans made at analysis, so that the per-step loops load no index per entry where the
  /// pattern has runs (a chain's rows are two runs of three consecutive columns).
  ///
  /// A row run: `count` consecutive entries of one row of J, at consecutive storage positions
  /// from `position` and consecutive columns from `column`, all in the same `role` for q̈'s
  /// scatter by rows: the first row of their columns (q̈ starts there), neither first nor last,
  /// the last (q̈ is finished there: + f, / m), or the only one. Rows are listed in order
  /// (row_run_start_, nc + 1), each row's runs in storage order.
  enum class Role : int { First, Middle, Last, Only };
  struct RowRun {
    int position, column, count;
    Role role;
  };
  std::vector<int> row_run_start_;
  std::vector<RowRun> row_runs_;
  std::vector<int> empty_columns_;  ///< columns of J without entries: q̈ = f / m there
  /// A's entries above the diagonal, grouped by their row i of A (row_entry_start_, nc + 1):
  /// each names its slot in ldlt.values() and its range of pair runs in pair_runs_ (pair_start_,
  /// entries + 1). A pair run is `count` columns k = column, column + 1, … that rows i < j share,
  /// with J(i, k) at storage positions left, left + 1, … and J(j, k) at right, right + 1, …:
  /// A(i, j) = Σ over its runs Σ_k J(i, k) w_k J(j, k), columns ascending.
  struct PairRun {
    int left, right, column, count;
  };
  std::vector<int> row_entry_start_, entry_target_, pair_start_;
  std::vector<PairRun> pair_runs_;
  std::vector<int> diagonal_position_;  ///< row i → ldlt.values() index of A(i, i)
  bool in_place_ = false;  ///< the model writes J's storage directly (model order = storage order)
  /// The count of every row run and pair run when all are equal and ≤ 3 (a chain: 3), else 0.
  int run_width_ = 0;
};

}  // namespace kktdae

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

using SparseRowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

struct SparseConstraintSpace {
  /// Reads the model's Jacobian pattern and analyzes A = J W Jᵀ (pattern, ordering, symbolic
  /// factorization). Allocates; O(nnz) for a chain. Throws std::invalid_argument when the model
  /// reports no sparse Jacobian, or its pattern has an index out of range or a repeated entry.
  explicit SparseConstraintSpace(const ConstrainedSystem& system);

  int nq = 0, nc = 0;
  SparseRowMatrix J;        ///< nc×nq, the model's pattern; values from evaluateJacobian()
  /// J's values in the model's order (jacobianNonZeros()), copied into J's storage; empty when
  /// the model's order is the storage order (rows ascending, columns ascending within a row),
  /// and the model then writes J's values in place.
  Vector model_values;
  std::vector<int> storage_position;  ///< model order → index into J.valuePtr()
  SparseLdlt ldlt;          ///< of A (+ diagonal terms), sized nc

  /// Evaluates J(q, t) into J (values only). Returns false if a value is not finite.
  bool evaluateJacobian(const ConstrainedSystem& system, ConstVectorRef q, double t);
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
  /// Adds d (nc) to A's diagonal in ldlt.values().
  void addToDiagonal(ConstVectorRef d);
  /// Adds the same value to every diagonal entry of A in ldlt.values().
  void addToDiagonal(double value);

 private:
  /// A = J W Jᵀ row by row; with `force` non-null also rhs = target − J W f.
  void assembleRows(ConstVectorRef weights, const double* force, const double* target, VectorRef diagonal,
                    double* rhs);

  /// A's entries above the diagonal, grouped by their row i of A (row_entry_start_, nc + 1):
  /// each names its slot in ldlt.values() and its range of pairs in pairs_ (pair_start_,
  /// entries + 1). A pair is the two storage positions in J.valuePtr() of J(i, k) and J(j, k)
  /// for a column k the rows share: A(i, j) = Σ over its pairs J(i, k) w_k J(j, k).
  struct Pair {
    int left, right;
  };
  std::vector<int> row_entry_start_, entry_target_, pair_start_;
  std::vector<Pair> pairs_;
  std::vector<int> diagonal_position_;  ///< row i → ldlt.values() index of A(i, i)
  /// J by columns for Jᵀλ: column c's entries (storage position, row), rows ascending.
  struct ColumnEntry {
    int position, row;
  };
  std::vector<int> column_start_;
  std::vector<ColumnEntry> column_entries_;
  bool in_place_ = false;  ///< the model writes J's storage directly (model order = storage order)
};

}  // namespace kktdae

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
  Vector model_values;      ///< J's values in the model's order (jacobianNonZeros())
  std::vector<int> storage_position;  ///< model order → index into J.valuePtr()
  SparseLdlt ldlt;          ///< of A (+ diagonal terms), sized nc

  /// Evaluates J(q, t) into J (values only). Returns false if a value is not finite.
  bool evaluateJacobian(const ConstrainedSystem& system, ConstVectorRef q, double t);
  /// Writes A = J diag(weights) Jᵀ into ldlt.values() and its diagonal into `diagonal` (nc).
  /// Sizes: weights nq. Allocates nothing.
  void assemble(ConstVectorRef weights, VectorRef diagonal);
  /// Adds d (nc) to A's diagonal in ldlt.values().
  void addToDiagonal(ConstVectorRef d);
  /// Adds the same value to every diagonal entry of A in ldlt.values().
  void addToDiagonal(double value);

 private:
  /// One term J(i, k) w_k J(j, k) of A(i, j): positions in J.valuePtr(), the column k, and the
  /// target in ldlt.values().
  struct Term {
    int target, left, right, column;
  };
  std::vector<Term> terms_;
  std::vector<int> diagonal_position_;  ///< row i → ldlt.values() index of A(i, i)
};

}  // namespace kktdae

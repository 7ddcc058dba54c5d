#pragma once
/// @file
/// The block KKT matrix of the sparse path, [M −Jᵀ; J R], factorized by a sparse LU with
/// partial pivoting (SuiteSparse's KLU, 64-bit indices) in a fixed pattern.

#include <memory>
#include <vector>

#include "kktdae/kkt/sparse_constraint_space.hpp"

namespace kktdae {

/// K = [M −Jᵀ; J R] in compressed columns, R the (n_c × n_c) diagonal of soft constraints or of
/// the Regularize policy (0 for hard constraints). The pattern is fixed at construction: every
/// corner diagonal is stored even when 0. The first factorize() orders, pivots and factorizes
/// (allocates); later ones refactorize with the same pivot sequence (no allocation) and fall back
/// to a fresh pivoting factorization when the pivots have degraded. Not copyable: one per
/// workspace, one workspace per thread.
class SparseBlockSystem {
 public:
  /// Builds K's pattern from the constraint space's J and runs KLU's symbolic analysis
  /// (BTF + AMD ordering) once. Throws std::runtime_error if KLU refuses the pattern.
  explicit SparseBlockSystem(const SparseConstraintSpace& space);
  ~SparseBlockSystem();
  SparseBlockSystem(const SparseBlockSystem&) = delete;
  SparseBlockSystem& operator=(const SparseBlockSystem&) = delete;
  /// Movable (the KLU objects move with it), not copyable.
  SparseBlockSystem(SparseBlockSystem&&) noexcept;
  /// Moves the factorization in, freeing this one's.
  SparseBlockSystem& operator=(SparseBlockSystem&&) noexcept;

  /// Writes K's values: diag(M) (nq), J's values in J.valuePtr() order, and R's diagonal (nc).
  void assemble(ConstVectorRef mass_diagonal, const SparseRowMatrix& J, ConstVectorRef corner);
  /// LU of the assembled values. False when K is singular (singularColumn() says where).
  bool factorize();
  /// KLU's crude reciprocal condition, min |U_kk| / max |U_kk|, of the last factorization.
  double pivotRatio() const;
  /// On failure: the column of K whose pivot vanished (nq + i is constraint i); −1 otherwise.
  long singularColumn() const;
  /// x ← K⁻¹ x (size nq + nc). Allocates nothing.
  void solveInPlace(Eigen::Ref<Vector> x);
  /// Pivoting factorizations so far (the first, plus every fallback from a refactorization).
  long fullFactorizations() const;

  ///@{
  int nq = 0, nc = 0;  ///< the system's sizes: K is (nq + nc)²
  ///@}
  ///@{
  Vector rhs, solution;  ///< size nq + nc, for the caller
  ///@}

 private:
  struct Klu;
  std::unique_ptr<Klu> klu_;
  std::vector<long> column_start_, row_index_;
  Vector values_;
  std::vector<long> mass_position_, corner_position_;
  std::vector<long> jacobian_position_, jacobian_transpose_position_;  ///< per J storage entry
};

}  // namespace kktdae

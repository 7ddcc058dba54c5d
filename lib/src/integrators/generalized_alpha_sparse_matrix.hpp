#pragma once
// The sparse Newton matrix of the generalized-α step (internal header): the block matrix
// [M + β′K, −Jᵀ; J, 0] in a fixed compressed-column pattern, factorized by KLU.

#include <memory>
#include <string>
#include <vector>

#include "../linalg/klu_lu.hpp"
#include "kktdae/system/sparse_dynamics_jacobian.hpp"

namespace kktdae::detail {

/// For the models SparseDynamicsJacobian supports (sparse J, constant diagonal M, h constant or
/// with ∂h/∂(q, q̇) in a declared band, no inputs, scleronomic φ) the iteration matrix of
/// docs/integrators.md reduces to
///
///     [ M + β′(∂h/∂q − Σᵢ λᵢ Hᵢ) + γ′ ∂h/∂q̇    −Jᵀ ]    Hᵢ = ∇²φᵢ over row i's pattern,
///     [ J                                        0  ]    ∂(M q̈)/∂q = 0,
///
/// the constraint rows already divided by β′. Its pattern (diag M, every Hᵢ block, the band of
/// ∂h/∂(q, q̇) when h depends on the state, J, Jᵀ) is
/// fixed; KLU's symbolic analysis (BTF + AMD) runs once at construction. The first factorize()
/// pivots and factorizes (KLU allocates its numeric object); later ones refactor with the same
/// pivot sequence (klu_l_refactor: no allocation) and pivot afresh only when the pivots degrade.
/// One instance per run; not copyable.
class GeneralizedAlphaSparseMatrix {
 public:
  /// Throws std::invalid_argument (field "generalized_alpha.iteration_matrix") when
  /// SparseDynamicsJacobian::unsupportedReason(system) is not empty, std::runtime_error when KLU
  /// refuses the pattern.
  explicit GeneralizedAlphaSparseMatrix(const ConstrainedSystem& system);
  ~GeneralizedAlphaSparseMatrix();
  GeneralizedAlphaSparseMatrix(const GeneralizedAlphaSparseMatrix&) = delete;
  GeneralizedAlphaSparseMatrix& operator=(const GeneralizedAlphaSparseMatrix&) = delete;

  /// Derivatives at (t, q, v) (colored differences of J: 3 + 2·colors model calls; of h: 1 +
  /// 2·bias colors more with a band), assembly with λ, β′ and γ′, and the LU. False when a value
  /// is not finite or KLU finds the matrix singular; pivotRatio() is then 0. Sizes: q, v nq; lambda nc.
  bool factorize(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, double beta_prime,
                 double gamma_prime);
  /// KLU's min |u_kk| / max |u_kk| of the last factorization (its crude reciprocal condition).
  double pivotRatio() const { return values_.allFinite() ? lu_->pivotRatio() : 0.0; }
  /// x ← A⁻¹ x, size nq + nc. Allocates nothing.
  void solveInPlace(Eigen::Ref<Vector> x);

  long nonZeros() const { return static_cast<long>(row_index_.size()); }
  /// J's pattern (the model's constraintJacobianPattern()), for the residual's Jᵀλ.
  const IndexVector& jacobianRows() const { return derivatives_.rows(); }
  const IndexVector& jacobianCols() const { return derivatives_.cols(); }
  int colors() const { return derivatives_.colors(); }
  /// Colors of ∂h/∂(q, q̇)'s band (0 when h is constant).
  int biasColors() const { return derivatives_.biasColors(); }
  /// Model calls made by factorize() so far.
  long modelEvaluations() const { return derivatives_.modelEvaluations(); }
  /// Pivoting factorizations so far (the first and each fallback from a refactor).
  long fullFactorizations() const { return lu_->fullFactorizations(); }

 private:
  long position(int row, int col) const;  // construction only

  SparseDynamicsJacobian derivatives_;
  std::unique_ptr<KluLu> lu_;
  int nq_, nc_;
  std::vector<long> column_start_, row_index_;
  Vector values_;
  std::vector<long> mass_;                          // nq: the diagonal of M
  std::vector<long> jacobian_, jacobian_transpose_;  // per J entry: J (rows nq + i), −Jᵀ (columns nq + i)
  std::vector<long> hessian_;                        // per (row i, a, b) of pattern_i²: the K entry
  std::vector<long> bias_;                           // per band slot (k·(2b + 1) + i − k + b): the entry, or −1
};

}  // namespace kktdae::detail

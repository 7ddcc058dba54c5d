#pragma once
/// @file
/// The sparse counterpart of DynamicsJacobian for long chains: the curvature of the constraints
/// in J's fixed pattern, from colored differences. For models with a sparse J
/// (jacobianNonZeros() > 0), a constant diagonal M, no inputs, scleronomic φ, and an h that is
/// either independent of the state or has ∂h/∂(q, v) in a declared band
/// (ConstrainedSystem::biasJacobianBandwidth() = b ≥ 0) — there K, C and ∂c/∂(q, v) reduce to
/// what this class returns:
///
///     K = ∂h/∂q − Σᵢ λᵢ Hᵢ,   C = ∂h/∂v,   ∂c/∂q = Σᵢ eᵢ aᵀHᵢ + ∂γ/∂q,   ∂c/∂v = ∂γ/∂v,
///
/// with Hᵢ = ∇²φᵢ over the coordinates of row i's pattern. Hᵢ(a, b) = ∂J(i, kₐ)/∂q_{k_b} and
/// ∂γ/∂(q, v) come from forward differences of J and γ along colored directions: columns of J
/// that share no row are perturbed together (6 colors for a 3D chain), because row i depends
/// only on the coordinates in its own pattern. ∂h/∂q and ∂h/∂v (zero when h is constant) come
/// the same way from h with the band coloring: columns k ≡ c (mod 2b + 1) are perturbed
/// together, since column k of the band reaches rows k − b … k + b only (2b + 1 colors, one h per
/// color and per variable). Allocates at construction only.

#include <string>
#include <vector>

#include "kktdae/system/dynamics_jacobian.hpp"

namespace kktdae {

/// The terms of the implicit integrators' Newton matrix for a model with a sparse J and a constant
/// diagonal M, evaluated by colored differences (this file's description) and held as J's
/// pattern, row Hessian blocks and a band of ∂h/∂(q, v).
class SparseDynamicsJacobian {
 public:
  /// Throws std::invalid_argument (field "sparse_dynamics_jacobian") when unsupportedReason() is not empty.
  SparseDynamicsJacobian(const ConstrainedSystem& system, DynamicsJacobianOptions options = {});

  /// Why `system` cannot use this class ("" when it can).
  static std::string unsupportedReason(const ConstrainedSystem& system);

  /// J's values, diag M, every Hᵢ and ∂γ/∂q at (t, q, v); ∂γ/∂v too when `with_velocity`;
  /// ∂h/∂q and ∂h/∂v whenever biasBandwidth() ≥ 0 (1 + 2·biasColors() more model calls).
  /// Model exceptions propagate; non-finite output shows up in the values.
  void evaluate(double t, ConstVectorRef q, ConstVectorRef v, bool with_velocity);

  ///@{
  /// J's pattern in the model's order (constraintJacobianPattern) and its values.
  int nonZeros() const { return nnz_; }
  const IndexVector& rows() const { return rows_; }
  const IndexVector& cols() const { return cols_; }
  const Vector& jacobianValues() const { return j0_; }
  ///@}
  /// diag M (constant).
  const Vector& massDiagonal() const { return mass_; }
  /// ∂γᵢ/∂q_k and ∂γᵢ/∂v_k at J's entry p = (i, k) (∂γ/∂v only after evaluate(…, true)).
  ///@{
  const Vector& gammaQ() const { return gamma_q_; }
  const Vector& gammaV() const { return gamma_v_; }
  ///@}
  /// The entries of row i: rowEntry(i, a), a < rowSize(i), are indices into the pattern.
  ///@{
  int rowSize(int i) const { return row_start_[static_cast<std::size_t>(i) + 1] - row_start_[static_cast<std::size_t>(i)]; }
  int rowEntry(int i, int a) const { return row_entries_[static_cast<std::size_t>(row_start_[static_cast<std::size_t>(i)] + a)]; }
  ///@}
  /// Row i's Hessian block, row-major rowSize(i)²: Hᵢ(a, b) = hessianValues()[hessianStart(i) + a·size + b].
  ///@{
  int hessianStart(int i) const { return hessian_start_[static_cast<std::size_t>(i)]; }
  const Vector& hessianValues() const { return hessian_; }
  ///@}
  /// Colors of J's columns (difference directions per evaluate: J once and γ twice each).
  int colors() const { return colors_; }
  /// Half-width b of ∂h/∂(q, v)'s band; −1 when h does not depend on the state (no band).
  int biasBandwidth() const { return bias_bandwidth_; }
  /// Colors of the band (2b + 1, at most nq; 0 without a band): h is evaluated once per color
  /// for ∂h/∂q and once for ∂h/∂v.
  int biasColors() const { return bias_colors_; }
  /// ∂h_i/∂q_k and ∂h_i/∂v_k for |i − k| ≤ biasBandwidth() (0 ≤ i, k < nq), from the last evaluate().
  ///@{
  double biasQ(int i, int k) const { return bias_q_[bandIndex(i, k)]; }
  double biasV(int i, int k) const { return bias_v_[bandIndex(i, k)]; }
  ///@}
  /// Model calls made by evaluate() so far.
  long modelEvaluations() const { return model_evaluations_; }

 private:
  Eigen::Index bandIndex(int i, int k) const {
    return static_cast<Eigen::Index>(k) * (2 * bias_bandwidth_ + 1) + (i - k + bias_bandwidth_);
  }
  /// ∂h/∂q (in_q) or ∂h/∂v along the band colors into `out` (needs h0_ = h(q, v) first).
  void biasBand(double t, ConstVectorRef q, ConstVectorRef v, bool in_q, Vector& out);

  const ConstrainedSystem& system_;
  DynamicsJacobianOptions options_;
  int nq_, nc_, nnz_;
  IndexVector rows_, cols_;
  std::vector<int> row_start_, row_entries_, hessian_start_;
  int colors_ = 0;
  std::vector<int> column_color_;         // nq
  std::vector<int> color_column_of_row_;  // colors × nc: the column of color c in row i, or −1
  std::vector<int> local_index_;          // colors × nc: that column's position in row i
  Vector j0_, j1_, gamma0_, gamma1_, q_, v_, mass_, gamma_q_, gamma_v_, hessian_;
  int bias_bandwidth_ = -1, bias_colors_ = 0;
  Vector h0_, h1_, bias_q_, bias_v_;  // nq, nq, and the bands: nq × (2b + 1), column by column
  long model_evaluations_ = 0;
};

}  // namespace kktdae

#pragma once
// The sparse Newton matrix of IDA's residual (internal header), assembled in a fixed pattern.

#include <sundials/sundials_types.h>

#include <vector>

#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::detail {

/// G = ∂F/∂y + c ∂F/∂ẏ of ida_run.cpp's residual, y = (q, v, λ[, μ]), for models with a sparse
/// J, a constant diagonal M, h independent of the state, no inputs and scleronomic φ:
///
///     index-1            q            v               λ          GGL adds   μ
///     F_q = q̇ − v       cI          −I                           + Σμᵢ Hᵢ   Jᵀ
///     F_v = Mv̇ + h − Jᵀλ −ΣλᵢHᵢ      cM              −Jᵀ
///     F_c = Jv̇ + γ       ∂(Jv̇)/∂q + ∂γ/∂q + 2α∂(Jv)/∂q + β²J,   ∂γ/∂v + (2α + c) J
///     GGL: F_φ̇ = Jv      ∂(Jv)/∂q     J;           F_φ = φ:   J
///
/// with Hᵢ = ∇²φᵢ. The structural blocks are exact; Hᵢ and ∂γ/∂(q, v) come from forward
/// differences of J and γ along colored directions: columns of J that share no row are
/// perturbed together (6 colors for a 3D chain), because row i depends only on the coordinates
/// in its own pattern. A Newton matrix is allowed to be approximate; the differences are
/// O(√eps) accurate, which keeps Newton's convergence quadratic in practice.
class IdaSparseNewton {
 public:
  IdaSparseNewton(const ConstrainedSystem& system, bool ggl, const Stabilization& stabilization);

  /// Why `system` cannot use it ("" when it can): what NewtonLinearSolver::Sparse requires.
  static std::string unsupportedReason(const ConstrainedSystem& system);

  long nonZeros() const { return static_cast<long>(row_index_.size()); }
  /// The compressed-column pattern (fixed), for SUNSparseMatrix.
  void copyPattern(sunindextype* column_start, sunindextype* row_index) const;
  /// Writes G's values at (t, y, ẏ) with coefficient c into `data` (nonZeros()). Allocates nothing.
  void assemble(double t, const double* y, const double* y_dot, double c, double* data);
  /// Colors of J's columns (the difference quotients per assembly: J once and γ twice each).
  int colors() const { return colors_; }

 private:
  long position(int row, int col) const;  // init only

  const ConstrainedSystem& system_;
  bool ggl_;
  double alpha_, beta_;
  int nq_, nc_, nnz_j_;
  IndexVector j_rows_, j_cols_;            // model order
  std::vector<int> row_start_;             // entries of row i: row_entries_[row_start_[i] .. row_start_[i+1])
  std::vector<int> row_entries_;           // model indices, by row
  int colors_ = 0;
  std::vector<int> column_color_;          // nq
  std::vector<int> color_column_of_row_;   // colors × nc: the column of color c in row i, or −1
  std::vector<sunindextype> column_start_, row_index_;
  // Positions in data of each contribution.
  std::vector<long> q_identity_, v_identity_, mass_;           // nq each: F_q×q, F_q×v, F_v×v diagonals
  std::vector<long> jt_lambda_, jt_mu_;                        // per J entry: F_v×λ (−Jᵀ), F_q×μ (Jᵀ)
  std::vector<long> constraint_q_, constraint_v_, position_q_; // per J entry: F_c×q, F_c×v, F_φ×q
  std::vector<long> hessian_v_rows_, hessian_q_rows_;          // per (row, a, b) of pattern_i²: F_v×q, F_q×q
  std::vector<int> hessian_start_;                             // row i's block in the two above
  // Scratch.
  Vector j0_, j1_, gamma0_, gamma1_, q_, v_, hessian_;
};

}  // namespace kktdae::detail

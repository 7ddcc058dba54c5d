#pragma once
/// @file
/// Per-state record of the constraint quantities of any model: φ, φ̇ and λ.

#include <vector>

#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Records, for each observed state, t and the stacked φ (nc), φ̇ = J q̇ + ∂φ/∂t (nc) and λ (nc).
/// Evaluation buffers are sized once; appending to the record allocates (amortized).
class ConstraintTrace {
 public:
  /// Sizes the evaluation buffers for `system`, which must outlive the trace.
  explicit ConstraintTrace(const ConstrainedSystem& system);

  /// Evaluates φ and φ̇ at the state and appends them with t and λ. Sizes: q, v nq; lambda nc.
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda);

  std::size_t size() const { return t_.size(); }  ///< states recorded
  const std::vector<double>& times() const { return t_; }  ///< t of each state [s]
  /// φ_k of state i; k < nc.
  double phi(std::size_t i, int k) const { return phi_[i * nc_ + static_cast<std::size_t>(k)]; }
  /// φ̇_k of state i; k < nc.
  double phiDot(std::size_t i, int k) const { return phi_dot_[i * nc_ + static_cast<std::size_t>(k)]; }
  /// λ_k of state i; k < nc.
  double lambda(std::size_t i, int k) const { return lambda_[i * nc_ + static_cast<std::size_t>(k)]; }
  /// ‖φ‖∞ of state i.
  double phiInf(std::size_t i) const;

 private:
  const ConstrainedSystem& system_;
  std::size_t nc_;
  Vector phi_buffer_, phi_t_buffer_;
  Matrix jacobian_buffer_;
  std::vector<double> t_, phi_, phi_dot_, lambda_;
};

}  // namespace kktdae

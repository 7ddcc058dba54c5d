#pragma once
// A model whose constraint terms can be simplified for one step at a time: the "switch a term
// off" variants of the trajectory-based stability prediction (docs/baumgarte.md §5).
//
// The reference trajectory is always integrated with the real model; only the finite-difference
// linearization of one step uses this wrapper, re-anchored at the step's start state before each
// step (setAnchor). Between two setAnchor calls the wrapper is constant, as a ConstrainedSystem
// must be; it is never shared between threads.

#include "kktdae/system/constrained_system.hpp"

namespace kktdae::detail {

class ConstraintVariantSystem final : public ConstrainedSystem {
 public:
  /// freeze_jacobian: φ, J, ∂φ/∂t replaced by their first-order expansion at the anchor
  /// (φ̃ = φ_a + J_a (q − q_a) + φ_t,a (t − t_a), J̃ = J_a): the constraint does not turn with the
  /// motion during the step. drop_gamma: γ̃ = 0, so γ's dependence on (q, q̇) leaves the loop.
  ConstraintVariantSystem(const ConstrainedSystem& inner, bool freeze_jacobian, bool drop_gamma);

  /// Re-anchors the frozen expansion at (q, t). Sizes: q nq.
  void setAnchor(ConstVectorRef q, double t);

  std::string name() const override { return inner_.name() + "+variant"; }
  int nq() const override { return inner_.nq(); }
  int nc() const override { return inner_.nc(); }
  int nu() const override { return inner_.nu(); }
  MassStructure massStructure() const override { return inner_.massStructure(); }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { inner_.massMatrix(q, M); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { inner_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { inner_.bias(q, v, t, h); }
  void inputMap(ConstVectorRef q, double t, MatrixRef S) const override { inner_.inputMap(q, t, S); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  bool isTimeDependent() const override { return inner_.isTimeDependent(); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return inner_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return inner_.potentialEnergy(q, t); }

 private:
  const ConstrainedSystem& inner_;
  bool freeze_jacobian_;
  bool drop_gamma_;
  double t_anchor_ = 0.0;
  Vector q_anchor_, phi_anchor_, phi_t_anchor_;
  Matrix J_anchor_;
};

}  // namespace kktdae::detail

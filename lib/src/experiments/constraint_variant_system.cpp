#include "constraint_variant_system.hpp"

namespace kktdae::detail {

ConstraintVariantSystem::ConstraintVariantSystem(const ConstrainedSystem& inner, bool freeze_jacobian, bool drop_gamma)
    : inner_(inner),
      freeze_jacobian_(freeze_jacobian),
      drop_gamma_(drop_gamma),
      q_anchor_(Vector::Zero(inner.nq())),
      phi_anchor_(Vector::Zero(inner.nc())),
      phi_t_anchor_(Vector::Zero(inner.nc())),
      J_anchor_(Matrix::Zero(inner.nc(), inner.nq())) {}

void ConstraintVariantSystem::setAnchor(ConstVectorRef q, double t) {
  q_anchor_ = q;
  t_anchor_ = t;
  inner_.constraint(q, t, phi_anchor_);
  inner_.constraintJacobian(q, t, J_anchor_);
  inner_.constraintTimeDerivative(q, t, phi_t_anchor_);
}

void ConstraintVariantSystem::constraint(ConstVectorRef q, double t, VectorRef phi) const {
  if (!freeze_jacobian_) return inner_.constraint(q, t, phi);
  phi.noalias() = phi_anchor_ + J_anchor_ * (q - q_anchor_) + (t - t_anchor_) * phi_t_anchor_;
}

void ConstraintVariantSystem::constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const {
  if (!freeze_jacobian_) return inner_.constraintJacobian(q, t, J);
  J = J_anchor_;
}

void ConstraintVariantSystem::constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const {
  if (!freeze_jacobian_) return inner_.constraintTimeDerivative(q, t, phi_t);
  phi_t = phi_t_anchor_;
}

void ConstraintVariantSystem::constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const {
  if (drop_gamma_) {
    gamma.setZero();
    return;
  }
  inner_.constraintBias(q, v, t, gamma);
}

}  // namespace kktdae::detail

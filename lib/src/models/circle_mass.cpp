#include "kktdae/models/circle_mass.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae {

void CircleMassParams::validate() const {
  requirePositive("mass", mass);
  requireNonNegative("gravity", gravity);
  requirePositive("radius", radius);
}

CircleMass::CircleMass(CircleMassParams params) : params_(params) { params_.validate(); }

void CircleMass::massDiagonal(ConstVectorRef, VectorRef d) const { d.setConstant(params_.mass); }

void CircleMass::bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const {
  h << 0.0, params_.mass * params_.gravity;
}

void CircleMass::constraint(ConstVectorRef q, double, VectorRef phi) const {
  phi[0] = q[0] * q[0] + q[1] * q[1] - params_.radius * params_.radius;
}

void CircleMass::constraintJacobian(ConstVectorRef q, double, MatrixRef J) const {
  J << 2.0 * q[0], 2.0 * q[1];
}

void CircleMass::constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const {
  // J̇ q̇ = [2ẋ 2ẏ] q̇, as seed 002 writes it.
  gamma[0] = 2.0 * v[0] * v[0] + 2.0 * v[1] * v[1];
}

void CircleMass::evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const {
  // No shared work to speak of: one call instead of five, and the default ∂φ/∂t's setZero().
  bias(q, v, t, out.h);
  constraint(q, t, out.phi);
  if (out.J.size() > 0) constraintJacobian(q, t, out.J);
  constraintBias(q, v, t, out.gamma);
  out.phi_t[0] = 0.0;
}

double CircleMass::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  return 0.5 * params_.mass * v.squaredNorm();
}

double CircleMass::potentialEnergy(ConstVectorRef q, double) const {
  return params_.mass * params_.gravity * q[1];
}

State CircleMass::initialState(double x0_over_radius) const {
  State state;
  state.q = Vector::Zero(2);
  state.q[0] = params_.radius * x0_over_radius;
  state.v = Vector::Zero(2);
  return state;
}

}  // namespace kktdae

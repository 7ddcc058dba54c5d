#include "kktdae/models/car_axis.hpp"

#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void CarAxisParams::validate() const {
  requirePositive("eps", eps);
  requirePositive("M", M);
  requirePositive("L", L);
  requirePositive("L0", L0);
  requireNonNegative("r", r);
  // x_b = √(L² − y_b²) must stay real and away from 0 (J₁ = (x_b, y_b) then keeps full rank).
  if (!(r < L)) throwInvalid("r", "must be < L = " + formatDouble(L) + ", got " + formatDouble(r));
  if (!std::isfinite(w)) throwInvalid("w", "must be finite, got " + formatDouble(w));
  requireNonNegative("g", g);
}

CarAxis::CarAxis(CarAxisParams params) : params_(params) { params_.validate(); }

CarAxis::RoadPoint CarAxis::roadPoint(double t) const {
  const CarAxisParams& p = params_;
  RoadPoint b;
  b.y = p.r * std::sin(p.w * t);
  b.y_dot = p.r * p.w * std::cos(p.w * t);
  b.y_ddot = -p.w * p.w * b.y;
  b.x = std::sqrt(p.L * p.L - b.y * b.y);
  // From x_b² + y_b² = L², differentiated once and twice.
  b.x_dot = -b.y * b.y_dot / b.x;
  b.x_ddot = -(b.x_dot * b.x_dot + b.y_dot * b.y_dot + b.y * b.y_ddot) / b.x;
  return b;
}

void CarAxis::massDiagonal(ConstVectorRef, VectorRef d) const { d.setConstant(params_.coordinateMass()); }

void CarAxis::bias(ConstVectorRef q, ConstVectorRef, double t, VectorRef h) const {
  const CarAxisParams& p = params_;
  const RoadPoint b = roadPoint(t);
  const double left = std::hypot(q[0], q[1]);
  const double rx = q[2] - b.x, ry = q[3] - b.y;
  const double right = std::hypot(rx, ry);
  const double weight = p.coordinateMass() * p.g;
  // Unit-stiffness springs: the force on a wheel is (L0 − ℓ) along its spring, outwards.
  h[0] = -(p.L0 - left) * q[0] / left;
  h[1] = -(p.L0 - left) * q[1] / left + weight;
  h[2] = -(p.L0 - right) * rx / right;
  h[3] = -(p.L0 - right) * ry / right + weight;
}

void CarAxis::constraint(ConstVectorRef q, double t, VectorRef phi) const {
  const RoadPoint b = roadPoint(t);
  const double dx = q[0] - q[2], dy = q[1] - q[3];
  phi[0] = b.x * q[0] + b.y * q[1];
  phi[1] = dx * dx + dy * dy - params_.L * params_.L;
}

void CarAxis::constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const {
  const RoadPoint b = roadPoint(t);
  const double dx = q[0] - q[2], dy = q[1] - q[3];
  J << b.x, b.y, 0.0, 0.0, 2.0 * dx, 2.0 * dy, -2.0 * dx, -2.0 * dy;
}

void CarAxis::constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const {
  const RoadPoint b = roadPoint(t);
  phi_t[0] = b.x_dot * q[0] + b.y_dot * q[1];
  phi_t[1] = 0.0;
}

void CarAxis::constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const {
  const RoadPoint b = roadPoint(t);
  // φ₁ is linear in q with time-dependent coefficients: 2 (∂J₁/∂t) q̇ + ∂²φ₁/∂t².
  gamma[0] = 2.0 * (b.x_dot * v[0] + b.y_dot * v[1]) + b.x_ddot * q[0] + b.y_ddot * q[1];
  const double dvx = v[0] - v[2], dvy = v[1] - v[3];
  gamma[1] = 2.0 * (dvx * dvx + dvy * dvy);
}

double CarAxis::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  return 0.5 * params_.coordinateMass() * v.squaredNorm();
}

double CarAxis::potentialEnergy(ConstVectorRef q, double t) const {
  const RoadPoint b = roadPoint(t);
  const double left = std::hypot(q[0], q[1]) - params_.L0;
  const double right = std::hypot(q[2] - b.x, q[3] - b.y) - params_.L0;
  return 0.5 * (left * left + right * right) + params_.coordinateMass() * params_.g * (q[1] + q[3]);
}

ConsistentStart carAxisStart(const CarAxisParams& params) {
  params.validate();
  ConsistentStart start;
  start.state.t = 0.0;
  start.state.q.resize(4);
  start.state.q << 0.0, params.L0, params.L, params.L0;
  start.state.v.resize(4);
  start.state.v << -params.L0 / params.L, 0.0, -params.L0 / params.L, 0.0;
  // The Test Set's dyini: q̈ = f/k at λ = 0. With the default road (B(0) = (L, 0)) both springs
  // start at their rest length and only gravity is left.
  const CarAxis model(params);
  Vector h(4);
  model.bias(start.state.q, start.state.v, 0.0, h);
  start.qdd = -h / params.coordinateMass();
  start.lambda = Vector::Zero(2);
  return start;
}

ReferenceSolution carAxisReference() {
  ReferenceSolution ref;
  ref.source = "IVP Test Set, caraxis: quad-precision reference at t = 3 (R/ex_reference.R of cran/deTestSet)";
  ref.t_end = 3.0;
  ref.q.resize(4);
  ref.q << 0.493455784275402809122e-1, 0.496989460230171153861, 0.104174252488542151681e1, 0.373911027265361256927;
  ref.v.resize(4);
  ref.v << -0.770583684040972357970e-1, 0.744686658723778553466e-2, 0.175568157537232222276e-1,
      0.770341043779251976443;
  ref.lambda.resize(2);
  ref.lambda << -0.473688659084893324729e-2, -0.110468033125734368808e-2;
  ref.lambda_to_source = 1.0;
  ref.scored_components = 4;
  // The Test Set's report for caraxis (scd at rtol = atol).
  ref.published = {{"RADAU5", 1e-4, 0.19}, {"RADAU5", 1e-7, 2.51}, {"RADAU5", 1e-10, 3.15},
                   {"PSIDE", 1e-4, -0.28}, {"PSIDE", 1e-7, 2.27},  {"PSIDE", 1e-10, 4.86}};
  return ref;
}

}  // namespace kktdae

#pragma once
/// @file
/// Tutorial model (a), written by hand against ConstrainedSystem: a spherical pendulum.
/// docs/defining-models.md walks through every line.

#include <cmath>
#include <string>

#include "kktdae/kktdae.hpp"

namespace tutorial {
using namespace kktdae;

/// A point mass m on a rigid massless rod of length L to a fixed pivot at the origin, free to
/// swing in 3D. q = (x, y, z) with y up, M = m I₃, h = (0, m g, 0), one constraint
/// φ = ½(|q|² − L²) [m²], J = qᵀ, γ = |q̇|². The rod force Jᵀλ = λ q: λ [N/m] < 0 pulls inward.
class SphericalPendulum final : public ConstrainedSystem {
 public:
  /// Throws std::invalid_argument unless mass > 0, gravity ≥ 0 and length > 0.
  SphericalPendulum(double mass, double gravity, double length) : m_(mass), g_(gravity), L_(length) {
    requirePositive("mass", mass);
    requireNonNegative("gravity", gravity);
    requirePositive("length", length);
  }

  std::string name() const override { return "spherical_pendulum"; }
  int nq() const override { return 3; }
  int nc() const override { return 1; }

  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setConstant(m_); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, m_ * g_, 0.0; }

  void constraint(ConstVectorRef q, double, VectorRef phi) const override {
    phi[0] = 0.5 * (q.squaredNorm() - L_ * L_);
  }
  void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override { J = q.transpose(); }
  void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    gamma[0] = v.squaredNorm();  // φ̈ = q·q̈ + q̇·q̇, and γ is everything but J q̈
  }

  double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override { return 0.5 * m_ * v.squaredNorm(); }
  double potentialEnergy(ConstVectorRef q, double) const override { return m_ * g_ * q[1]; }
  bool isConservative() const override { return true; }

  /// On the sphere at angle theta [rad] from straight down, in the x–y plane, moving horizontally
  /// (along z) at `speed` [m/s]: φ = 0 and φ̇ = q·q̇ = 0 exactly.
  State initialState(double theta, double speed) const {
    State state;
    state.q = Eigen::Vector3d(L_ * std::sin(theta), -L_ * std::cos(theta), 0.0);
    state.v = Eigen::Vector3d(0.0, 0.0, speed);
    return state;
  }
  /// L_y = m (q × q̇)·ŷ [kg m²/s], the angular momentum about the vertical through the pivot:
  /// neither gravity (vertical) nor the rod (through the pivot) has a moment about that axis.
  double verticalAngularMomentum(ConstVectorRef q, ConstVectorRef v) const {
    return m_ * (q[2] * v[0] - q[0] * v[2]);
  }

 private:
  double m_, g_, L_;
};

}  // namespace tutorial

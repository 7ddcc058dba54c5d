#pragma once
/// @file
/// Tutorial model (b), derivatives by automatic differentiation: a bead on a rotating hoop, whose
/// constraint depends on time. docs/defining-models.md walks through every line.

#include <cmath>
#include <string>

#include "kktdae/kktdae.hpp"

namespace tutorial {
using namespace kktdae;

/// A bead of mass m on a circular hoop of radius R centred at the origin; the hoop spins at the
/// constant rate Ω about its vertical diameter, the y axis (y up). q = (x, y, z), two constraints:
///
///     φ₁ = ½(|q|² − R²)               [m²]  the bead is at distance R from the centre,
///     φ₂ = −sin(Ωt) x + cos(Ωt) z     [m]   and in the hoop's plane, spanned by ŷ and (cos Ωt, 0, sin Ωt).
///
/// T = ½ m |q̇|² and V = m g y; LagrangianSystem derives M, h, J, ∂φ/∂t and γ from T, V and φ.
class BeadOnHoop final : public LagrangianSystem<BeadOnHoop> {
 public:
  /// Throws std::invalid_argument unless mass, radius > 0 and gravity, omega ≥ 0.
  BeadOnHoop(double mass, double gravity, double radius, double omega)
      : LagrangianSystem(3, 2), m_(mass), g_(gravity), R_(radius), omega_(omega) {
    requirePositive("mass", mass);
    requireNonNegative("gravity", gravity);
    requirePositive("radius", radius);
    requireNonNegative("omega", omega);
  }

  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar>, ConstVectorRefOf<Scalar> v, const Scalar&) const {
    return 0.5 * m_ * v.dot(v);
  }
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar&) const {
    return m_ * g_ * q[1];
  }
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> out) const {
    using std::cos;  // found for double; Dual's own cos and sin by argument-dependent lookup
    using std::sin;
    out[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - R_ * R_);
    out[1] = -sin(omega_ * t) * q[0] + cos(omega_ * t) * q[2];
  }

  std::string name() const override { return "bead_on_hoop"; }
  bool isTimeDependent() const override { return true; }

  /// At t = 0 (hoop in the x–y plane), angle theta [rad] from the bottom of the hoop, sliding
  /// along it at theta_dot [rad/s] and carried around by it: φ = 0 and φ̇ = J q̇ + ∂φ/∂t = 0.
  State initialState(double theta, double theta_dot) const {
    State state;
    state.q = Eigen::Vector3d(R_ * std::sin(theta), -R_ * std::cos(theta), 0.0);
    state.v = Eigen::Vector3d(R_ * std::cos(theta) * theta_dot, R_ * std::sin(theta) * theta_dot,
                              omega_ * R_ * std::sin(theta));
    return state;
  }
  /// θ* with cos θ* = g/(R Ω²), where the bead rides with the hoop. Throws std::invalid_argument
  /// unless Ω² > g/R (slower hoops keep the bead at the bottom).
  double equilibriumAngle() const {
    requirePositive("omega^2 - g/R", omega_ * omega_ - g_ / R_);
    return std::acos(g_ / (R_ * omega_ * omega_));
  }
  /// The bead's angle from the bottom of the hoop, atan2(√(x² + z²), −y) [rad].
  double angle(ConstVectorRef q) const { return std::atan2(std::hypot(q[0], q[2]), -q[1]); }
  /// Jacobi integral C = E − m Ω² (x² + z²) [J], the energy in the rotating frame: conserved,
  /// while E is not (the motor that spins the hoop does work through the constraint).
  double jacobiIntegral(ConstVectorRef q, ConstVectorRef v, double t) const {
    return totalEnergy(q, v, t) - m_ * omega_ * omega_ * (q[0] * q[0] + q[2] * q[2]);
  }

 private:
  double m_, g_, R_, omega_;
};

}  // namespace tutorial

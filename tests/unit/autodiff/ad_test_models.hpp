#pragma once
// Models whose constraints (or whole Lagrangian) are written once over a template scalar, each
// the automatic-derivative twin of a hand-written model: PendulumChain, CircleMass and
// testing::JointDoublePendulum. Shared by the autodiff unit tests, the allocation test and the
// benchmarks. Mass matrices and biases of the AutoDiffConstraints twins are delegated to the
// hand-written model: only J, ∂φ/∂t and γ are derived.

#include <cmath>

#include "kktdae/autodiff/autodiff_constraints.hpp"
#include "kktdae/autodiff/dual.hpp"
#include "kktdae/autodiff/lagrangian_system.hpp"
#include "support/test_models.hpp"

namespace kktdae::testing {

/// How closely a derived term must match its hand-written twin's.
inline constexpr double kMatchTolerance = 1e-12;

/// PendulumChain's φ_k = ½(|p_k − p_{k−1}|² − L_k²), written once.
class AdPendulumChain final : public AutoDiffConstraints<AdPendulumChain> {
 public:
  explicit AdPendulumChain(PendulumChainParams params)
      : AutoDiffConstraints(3 * static_cast<int>(params.masses.size()), static_cast<int>(params.masses.size())),
        chain_(std::move(params)) {}

  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    const PendulumChainParams& p = chain_.params();
    for (int k = 0; k < chain_.links(); ++k) {
      Eigen::Matrix<Scalar, 3, 1> d = q.template segment<3>(3 * k);
      if (k == 0) {
        d -= p.pivot;  // Dual minus double: allowed by dual.hpp's ScalarBinaryOpTraits
      } else {
        d -= q.template segment<3>(3 * k - 3);
      }
      out[k] = 0.5 * (d.dot(d) - p.lengths[k] * p.lengths[k]);
    }
  }

  std::string name() const override { return "ad_" + chain_.name(); }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { chain_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { chain_.bias(q, v, t, h); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return chain_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return chain_.potentialEnergy(q, t); }
  const PendulumChain& handWritten() const { return chain_; }

 private:
  PendulumChain chain_;
};

/// CircleMass's φ = x² + y² − L², written once.
class AdCircleMass final : public AutoDiffConstraints<AdCircleMass> {
 public:
  explicit AdCircleMass(CircleMassParams params = {}) : AutoDiffConstraints(2, 1), circle_(params) {}

  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    const double radius = circle_.params().radius;
    out[0] = q[0] * q[0] + q[1] * q[1] - radius * radius;
  }

  std::string name() const override { return "ad_circle_mass"; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { circle_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { circle_.bias(q, v, t, h); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return circle_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return circle_.potentialEnergy(q, t); }

 private:
  CircleMass circle_;
};

/// JointDoublePendulum's rotating slot, written once for every scalar: the tip
/// (l₁ sin θ₁ + l₂ sin θ₂, −l₁ cos θ₁ − l₂ cos θ₂) projected on (cos ωt, sin ωt) equals r.
template <typename Scalar>
Scalar rotatingSlot(const JointDoublePendulum::Params& p, ConstVectorRefOf<Scalar> q, const Scalar& t) {
  using std::cos;
  using std::sin;
  const Scalar x = p.l1 * sin(q[0]) + p.l2 * sin(q[1]);
  const Scalar y = -p.l1 * cos(q[0]) - p.l2 * cos(q[1]);
  const Scalar angle = p.omega * t;
  return x * cos(angle) + y * sin(angle) - p.slot_offset;
}

/// JointDoublePendulum with M, h, S by hand and the slot's J, ∂φ/∂t, γ derived.
class AdJointDoublePendulum final : public AutoDiffConstraints<AdJointDoublePendulum> {
 public:
  explicit AdJointDoublePendulum(JointDoublePendulum::Params p)
      : AutoDiffConstraints(2, p.rotating_slot ? 1 : 0), p_(p), hand_(p) {}

  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> out) const {
    if (p_.rotating_slot) out[0] = rotatingSlot<Scalar>(p_, q, t);
  }

  std::string name() const override { return "ad_joint_double_pendulum"; }
  int nu() const override { return 1; }
  bool isTimeDependent() const override { return p_.rotating_slot; }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { hand_.massMatrix(q, M); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { hand_.bias(q, v, t, h); }
  void inputMap(ConstVectorRef q, double t, MatrixRef S) const override { hand_.inputMap(q, t, S); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return hand_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return hand_.potentialEnergy(q, t); }

 private:
  JointDoublePendulum::Params p_;
  JointDoublePendulum hand_;
};

/// The joint-coordinate double pendulum from its Lagrangian alone: the textbook T and V of two
/// point masses on massless links (angles from the downward vertical), a motor torque on the
/// first joint (S = [1 0]) and, optionally, the rotating slot. Not final: a subclass below
/// replaces one piece by hand.
class LagrangianDoublePendulum : public LagrangianSystem<LagrangianDoublePendulum> {
 public:
  explicit LagrangianDoublePendulum(JointDoublePendulum::Params p)
      : LagrangianSystem(2, p.rotating_slot ? 1 : 0), p_(p) {}

  /// T = ½ m₁ |ṗ₁|² + ½ m₂ |ṗ₂|², ṗ₁ = l₁ θ̇₁ (cos θ₁, sin θ₁), ṗ₂ = ṗ₁ + l₂ θ̇₂ (cos θ₂, sin θ₂).
  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar&) const {
    using std::cos;
    using std::sin;
    const Scalar x1_dot = p_.l1 * cos(q[0]) * v[0];
    const Scalar y1_dot = p_.l1 * sin(q[0]) * v[0];
    const Scalar x2_dot = x1_dot + p_.l2 * cos(q[1]) * v[1];
    const Scalar y2_dot = y1_dot + p_.l2 * sin(q[1]) * v[1];
    return 0.5 * p_.m1 * (x1_dot * x1_dot + y1_dot * y1_dot) + 0.5 * p_.m2 * (x2_dot * x2_dot + y2_dot * y2_dot);
  }
  /// V = m₁ g y₁ + m₂ g y₂, y₁ = −l₁ cos θ₁, y₂ = y₁ − l₂ cos θ₂.
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar&) const {
    using std::cos;
    const Scalar y1 = -p_.l1 * cos(q[0]);
    const Scalar y2 = y1 - p_.l2 * cos(q[1]);
    return p_.m1 * p_.g * y1 + p_.m2 * p_.g * y2;
  }
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> out) const {
    if (p_.rotating_slot) out[0] = rotatingSlot<Scalar>(p_, q, t);
  }

  std::string name() const override { return "lagrangian_double_pendulum"; }
  int nu() const override { return 1; }
  bool isTimeDependent() const override { return p_.rotating_slot; }
  void inputMap(ConstVectorRef, double, MatrixRef S) const override { S << 1.0, 0.0; }

 protected:
  JointDoublePendulum::Params p_;
};

/// The same model with M written by hand (the "override a piece for speed" path).
class LagrangianDoublePendulumHandMass final : public LagrangianDoublePendulum {
 public:
  using LagrangianDoublePendulum::LagrangianDoublePendulum;
  void massMatrix(ConstVectorRef q, MatrixRef M) const override {
    const double c = std::cos(q[0] - q[1]);
    M << (p_.m1 + p_.m2) * p_.l1 * p_.l1, p_.m2 * p_.l1 * p_.l2 * c,  //
        p_.m2 * p_.l1 * p_.l2 * c, p_.m2 * p_.l2 * p_.l2;
  }
  /// The AD mass matrix of the base, for comparison.
  void derivedMassMatrix(ConstVectorRef q, MatrixRef M) const { LagrangianDoublePendulum::massMatrix(q, M); }
};

/// A particle of mass m in a plane that rotates by θ(t) = ½ α t² (rate θ̇ = α t, angular
/// acceleration α), in the rotating coordinates x ∈ ℝ², with a spring V = ½ k |x|².
/// T = ½ m |ẋ + θ̇ 𝐉x|² (𝐉 the quarter turn) has a q̇-linear part that depends on q and t, so every
/// term of h shows: h = m (2θ̇ 𝐉ẋ + α 𝐉x − θ̇² x) + k x (Coriolis, Euler, centrifugal, spring).
class RotatingFrameParticle final : public LagrangianSystem<RotatingFrameParticle> {
 public:
  RotatingFrameParticle(double mass, double alpha, double stiffness)
      : LagrangianSystem(2, 0), m_(mass), alpha_(alpha), k_(stiffness) {}

  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar& t) const {
    const Scalar rate = alpha_ * t;
    const Scalar inertial_x = v[0] - rate * q[1];
    const Scalar inertial_y = v[1] + rate * q[0];
    return 0.5 * m_ * (inertial_x * inertial_x + inertial_y * inertial_y);
  }
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar&) const {
    return 0.5 * k_ * (q[0] * q[0] + q[1] * q[1]);
  }

  std::string name() const override { return "rotating_frame_particle"; }

  /// The closed-form h above.
  Eigen::Vector2d expectedBias(const Eigen::Vector2d& x, const Eigen::Vector2d& xd, double t) const {
    const double rate = alpha_ * t;
    const Eigen::Vector2d quarter_x(-x[1], x[0]);
    const Eigen::Vector2d quarter_xd(-xd[1], xd[0]);
    return m_ * (2.0 * rate * quarter_xd + alpha_ * quarter_x - rate * rate * x) + k_ * x;
  }

 private:
  double m_, alpha_, k_;
};

}  // namespace kktdae::testing

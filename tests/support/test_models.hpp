#pragma once
// Models that exist only to exercise the library's paths the seed models do not reach: a dense,
// configuration-dependent M with Coriolis terms, a time-dependent constraint, redundant rows,
// a deliberately wrong γ, and a model that turns NaN at a given time.

#include <cmath>
#include <limits>
#include <random>

#include "kktdae/kktdae.hpp"

namespace kktdae::testing {

/// Planar double pendulum in joint coordinates (angles from the downward vertical), point masses
/// at the link ends. Optionally one rheonomic constraint: the tip's projection on the rotating
/// unit vector (cos ωt, sin ωt) equals `slot_offset` — a "rotating slot" with ∂φ/∂t, ∂J/∂t ≠ 0.
class JointDoublePendulum final : public ConstrainedSystem {
 public:
  struct Params {
    double m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81;
    bool rotating_slot = false;
    double omega = 1.3, slot_offset = 0.4;
  };
  explicit JointDoublePendulum(Params p) : p_(p) {}

  std::string name() const override { return "joint_double_pendulum"; }
  int nq() const override { return 2; }
  int nc() const override { return p_.rotating_slot ? 1 : 0; }
  int nu() const override { return 1; }
  bool isTimeDependent() const override { return p_.rotating_slot; }

  void massMatrix(ConstVectorRef q, MatrixRef M) const override {
    const double c = std::cos(q[0] - q[1]);
    M << (p_.m1 + p_.m2) * p_.l1 * p_.l1, p_.m2 * p_.l1 * p_.l2 * c,  //
        p_.m2 * p_.l1 * p_.l2 * c, p_.m2 * p_.l2 * p_.l2;
  }
  void bias(ConstVectorRef q, ConstVectorRef v, double, VectorRef h) const override {
    const double s = std::sin(q[0] - q[1]);
    h[0] = p_.m2 * p_.l1 * p_.l2 * s * v[1] * v[1] + (p_.m1 + p_.m2) * p_.g * p_.l1 * std::sin(q[0]);
    h[1] = -p_.m2 * p_.l1 * p_.l2 * s * v[0] * v[0] + p_.m2 * p_.g * p_.l2 * std::sin(q[1]);
  }
  /// A motor torque on the first joint.
  void inputMap(ConstVectorRef, double, MatrixRef S) const override { S << 1.0, 0.0; }

  void constraint(ConstVectorRef q, double t, VectorRef phi) const override {
    if (!p_.rotating_slot) return;
    const auto [x, y] = tip(q);
    phi[0] = x * std::cos(p_.omega * t) + y * std::sin(p_.omega * t) - p_.slot_offset;
  }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    if (!p_.rotating_slot) return;
    const double c = std::cos(p_.omega * t), s = std::sin(p_.omega * t);
    // ∂x/∂θi = li cos θi, ∂y/∂θi = li sin θi.
    J(0, 0) = p_.l1 * (std::cos(q[0]) * c + std::sin(q[0]) * s);
    J(0, 1) = p_.l2 * (std::cos(q[1]) * c + std::sin(q[1]) * s);
  }
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override {
    if (!p_.rotating_slot) return;
    const auto [x, y] = tip(q);
    phi_t[0] = p_.omega * (-x * std::sin(p_.omega * t) + y * std::cos(p_.omega * t));
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    if (!p_.rotating_slot) return;
    // Tip velocity and acceleration without q̈ terms: ẍ = Σ −li sin θi θ̇i², ÿ = Σ li cos θi θ̇i².
    const auto [x, y] = tip(q);
    const double xd = p_.l1 * std::cos(q[0]) * v[0] + p_.l2 * std::cos(q[1]) * v[1];
    const double yd = p_.l1 * std::sin(q[0]) * v[0] + p_.l2 * std::sin(q[1]) * v[1];
    const double xdd = -p_.l1 * std::sin(q[0]) * v[0] * v[0] - p_.l2 * std::sin(q[1]) * v[1] * v[1];
    const double ydd = p_.l1 * std::cos(q[0]) * v[0] * v[0] + p_.l2 * std::cos(q[1]) * v[1] * v[1];
    const double w = p_.omega, c = std::cos(w * t), s = std::sin(w * t);
    // φ = x c + y s − r; φ̈ = ẍ c + ÿ s + 2 w (−ẋ s + ẏ c) − w² (x c + y s).
    gamma[0] = xdd * c + ydd * s + 2.0 * w * (-xd * s + yd * c) - w * w * (x * c + y * s);
  }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override {
    return 0.5 * (p_.m1 + p_.m2) * p_.l1 * p_.l1 * v[0] * v[0] + 0.5 * p_.m2 * p_.l2 * p_.l2 * v[1] * v[1] +
           p_.m2 * p_.l1 * p_.l2 * v[0] * v[1] * std::cos(q[0] - q[1]);
  }
  double potentialEnergy(ConstVectorRef q, double) const override {
    return -(p_.m1 + p_.m2) * p_.g * p_.l1 * std::cos(q[0]) - p_.m2 * p_.g * p_.l2 * std::cos(q[1]);
  }

  std::pair<double, double> tip(ConstVectorRef q) const {
    return {p_.l1 * std::sin(q[0]) + p_.l2 * std::sin(q[1]), -p_.l1 * std::cos(q[0]) - p_.l2 * std::cos(q[1])};
  }

 private:
  Params p_;
};

/// The circle mass with its one constraint written twice: J M⁻¹ Jᵀ is exactly singular.
class DuplicatedCircle final : public ConstrainedSystem {
 public:
  std::string name() const override { return "duplicated_circle"; }
  int nq() const override { return 2; }
  int nc() const override { return 2; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setOnes(); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, 9.81; }
  void constraint(ConstVectorRef q, double, VectorRef phi) const override {
    phi.setConstant(q.squaredNorm() - 1.0);
  }
  void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override {
    J.row(0) = 2.0 * q.transpose();
    J.row(1) = 2.0 * q.transpose();
  }
  void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    gamma.setConstant(2.0 * v.squaredNorm());
  }
  double potentialEnergy(ConstVectorRef q, double) const override { return 9.81 * q[1]; }
};

/// A pendulum chain behind every method of the interface, sparse J included: the base of test
/// models that change one thing about a chain.
class ForwardingChain : public ConstrainedSystem {
 public:
  explicit ForwardingChain(int links) : chain_(PendulumChainParams::uniform(links)) {}
  int nq() const override { return chain_.nq(); }
  int nc() const override { return chain_.nc(); }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { chain_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { chain_.bias(q, v, t, h); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { chain_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    chain_.constraintJacobian(q, t, J);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    chain_.constraintBias(q, v, t, gamma);
  }
  int jacobianNonZeros() const override { return chain_.jacobianNonZeros(); }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    chain_.constraintJacobianPattern(rows, cols);
  }
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override {
    chain_.constraintJacobianValues(q, t, values);
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return chain_.potentialEnergy(q, t); }

 protected:
  PendulumChain chain_;
};

/// A pendulum chain whose γ is "forgotten" (the seed's warning: drop J̇v and you solve the wrong
/// equation). The derivative checker must catch it.
class ChainWithoutBias final : public ForwardingChain {
 public:
  explicit ChainWithoutBias(int links) : ForwardingChain(links) {}
  std::string name() const override { return "chain_without_bias"; }
  void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef gamma) const override { gamma.setZero(); }
};

/// Wraps a model and returns NaN in h from time `t_bad` on: a numerical failure mid-run.
class NanAfterTime final : public ConstrainedSystem {
 public:
  NanAfterTime(const ConstrainedSystem& inner, double t_bad) : inner_(inner), t_bad_(t_bad) {}
  std::string name() const override { return "nan_after_time"; }
  int nq() const override { return inner_.nq(); }
  int nc() const override { return inner_.nc(); }
  MassStructure massStructure() const override { return inner_.massStructure(); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { inner_.massDiagonal(q, d); }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { inner_.massMatrix(q, M); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override {
    inner_.bias(q, v, t, h);
    if (t >= t_bad_) h[0] = std::numeric_limits<double>::quiet_NaN();
  }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { inner_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    inner_.constraintJacobian(q, t, J);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    inner_.constraintBias(q, v, t, gamma);
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return inner_.potentialEnergy(q, t); }

 private:
  const ConstrainedSystem& inner_;
  double t_bad_;
};

/// Deterministic random vectors for property tests.
inline Vector randomVector(std::mt19937_64& rng, Eigen::Index n, double scale) {
  std::uniform_real_distribution<double> dist(-scale, scale);
  Vector x(n);
  for (Eigen::Index i = 0; i < n; ++i) x[i] = dist(rng);
  return x;
}

}  // namespace kktdae::testing

namespace kktdae::testing {

/// A point held to two concentric circles of different radii: no state satisfies both, the
/// target of a projection that cannot succeed.
class InconsistentCircles final : public ConstrainedSystem {
 public:
  std::string name() const override { return "inconsistent_circles"; }
  int nq() const override { return 2; }
  int nc() const override { return 2; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setOnes(); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h.setZero(); }
  void constraint(ConstVectorRef q, double, VectorRef phi) const override {
    phi << q.squaredNorm() - 1.0, q.squaredNorm() - 4.0;
  }
  void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override {
    J.row(0) = 2.0 * q.transpose();
    J.row(1) = 2.0 * q.transpose();
  }
  void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    gamma.setConstant(2.0 * v.squaredNorm());
  }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }
};

}  // namespace kktdae::testing

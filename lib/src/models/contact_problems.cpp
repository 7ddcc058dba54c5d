#include "kktdae/models/contact_problems.hpp"

#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"
#include "kktdae/models/pendulum_chain.hpp"

namespace kktdae::contact {

namespace {

void requireIn(const char* field, double value, double lo, double hi, bool open) {
  const bool inside = open ? (value > lo && value < hi) : (value >= lo && value <= hi);
  if (!inside) {
    throw std::invalid_argument(std::string(field) + " = " + formatDouble(value) + " outside " + (open ? "(" : "[") +
                                formatDouble(lo) + ", " + formatDouble(hi) + (open ? ")" : "]"));
  }
}

// A point mass on a vertical line: q = (y), M = m, h = m g, no equalities.
class FallingMass final : public ConstrainedSystem {
 public:
  FallingMass(double mass, double gravity) : m_(mass), g_(gravity) {}
  std::string name() const override { return "falling_mass"; }
  int nq() const override { return 1; }
  int nc() const override { return 0; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d[0] = m_; }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h[0] = m_ * g_; }
  void constraint(ConstVectorRef, double, VectorRef) const override {}
  void constraintJacobian(ConstVectorRef, double, MatrixRef) const override {}
  void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef) const override {}
  bool biasDependsOnState() const override { return false; }
  bool isConservative() const override { return true; }
  double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override { return 0.5 * m_ * v[0] * v[0]; }
  double potentialEnergy(ConstVectorRef q, double) const override { return m_ * g_ * q[0]; }

 private:
  double m_, g_;
};

}  // namespace

RelativeAngleLimit::RelativeAngleLimit(double length0, double length1, double limit, double restitution)
    : scale_(0.0), sin_limit_(0.0), restitution_(restitution) {
  if (!(length0 > 0.0) || !(length1 > 0.0)) {
    throw std::invalid_argument("RelativeAngleLimit: link lengths " + formatDouble(length0) + ", " +
                                formatDouble(length1) + " must be > 0");
  }
  requireIn("RelativeAngleLimit: limit", limit, 0.0, M_PI / 2, true);
  requireIn("RelativeAngleLimit: restitution", restitution, 0.0, 1.0, false);
  scale_ = 1.0 / (length0 * length1);
  sin_limit_ = std::sin(limit);
}

std::string RelativeAngleLimit::gapName(int k) const { return k == 0 ? "joint2_upper" : "joint2_lower"; }

double RelativeAngleLimit::restitution(int) const { return restitution_; }

void RelativeAngleLimit::gap(ConstVectorRef q, double, VectorRef g) const {
  const double s = scale_ * (q[0] * q[4] - q[1] * q[3]);  // (p₀ × p₁)_z / (L₀ L₁)
  g[0] = sin_limit_ - s;
  g[1] = sin_limit_ + s;
}

void RelativeAngleLimit::gapJacobian(ConstVectorRef q, double, MatrixRef J_N) const {
  J_N.setZero();
  // ∂(x₀y₁ − y₀x₁)/∂(x₀, y₀, x₁, y₁) = (y₁, −x₁, −y₀, x₀).
  const double dx0 = q[4], dy0 = -q[3], dx1 = -q[1], dy1 = q[0];
  J_N(1, 0) = scale_ * dx0;
  J_N(1, 1) = scale_ * dy0;
  J_N(1, 3) = scale_ * dx1;
  J_N(1, 4) = scale_ * dy1;
  J_N.row(0) = -J_N.row(1);
}

void RelativeAngleLimit::gapBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma_N) const {
  const double c = 2.0 * scale_ * (v[0] * v[4] - v[1] * v[3]);
  gamma_N[0] = -c;
  gamma_N[1] = c;
}

ContactProblem bouncingBall(const BouncingBallParams& p) {
  requireIn("BouncingBallParams::mass", p.mass, 0.0, HUGE_VAL, true);
  requireIn("BouncingBallParams::gravity", p.gravity, 0.0, HUGE_VAL, true);
  requireIn("BouncingBallParams::height", p.height, 0.0, 1e12, false);
  requireIn("BouncingBallParams::restitution", p.restitution, 0.0, 1.0, false);
  ContactProblem problem;
  problem.name = "ball";
  problem.system = std::make_shared<FallingMass>(p.mass, p.gravity);
  problem.gaps = std::make_shared<JointLimits>(1, std::vector<JointLimit>{JointLimit::lower("floor", 0, 0.0, p.restitution)});
  problem.initial.t = 0.0;
  problem.initial.q = Vector::Constant(1, p.height);
  problem.initial.v = Vector::Zero(1);
  return problem;
}

ContactProblem impactPendulum(const ImpactPendulumParams& p) {
  requireIn("ImpactPendulumParams::restitution", p.restitution, 0.0, 1.0, false);
  requireIn("ImpactPendulumParams::gravity", p.gravity, 0.0, HUGE_VAL, true);
  PendulumChainParams chain = PendulumChainParams::uniform(1, p.mass, p.length);
  chain.gravity = p.gravity;
  auto model = std::make_shared<PendulumChain>(chain);  // validates mass and length
  ContactProblem problem;
  problem.name = "impact_pendulum";
  problem.initial = model->initialState(0.0);
  problem.system = model;
  problem.gaps = std::make_shared<JointLimits>(3, std::vector<JointLimit>{JointLimit::lower("wall", 0, 0.0, p.restitution)});
  return problem;
}

ContactProblem limitedChain(const LimitedChainParams& p) {
  requireIn("LimitedChainParams::gravity", p.gravity, 0.0, HUGE_VAL, true);
  PendulumChainParams chain = PendulumChainParams::uniform(2, p.mass, p.length);
  chain.gravity = p.gravity;
  auto model = std::make_shared<PendulumChain>(chain);
  ContactProblem problem;
  problem.name = "limited_chain";
  problem.initial = model->initialState(0.0);
  problem.system = model;
  problem.gaps = std::make_shared<RelativeAngleLimit>(p.length, p.length, p.limit, p.restitution);
  return problem;
}

ContactProblem contactProblem(const std::string& name) {
  if (name == "ball") return bouncingBall();
  if (name == "impact_pendulum") return impactPendulum();
  if (name == "limited_chain") return limitedChain();
  throw std::invalid_argument("unknown contact problem '" + name + "' (choose ball, impact_pendulum or limited_chain)");
}

}  // namespace kktdae::contact

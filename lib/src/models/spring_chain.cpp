#include "kktdae/models/spring_chain.hpp"

#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void SpringChainParams::validate() const {
  chain.validate();
  requireNonNegative("joint_stiffness", joint_stiffness);
  requireNonNegative("joint_damping", joint_damping);
}

namespace {

const SpringChainParams& validated(const SpringChainParams& params) {
  params.validate();
  return params;
}

/// Link k's vector d_k = p_k − p_{k−1} (x, y only).
Eigen::Vector2d linkVector(ConstVectorRef x, const Eigen::Vector3d& pivot, int k) {
  if (k == 0) return {x[0] - pivot[0], x[1] - pivot[1]};
  return {x[3 * k] - x[3 * k - 3], x[3 * k + 1] - x[3 * k - 2]};
}

/// Link k's velocity ḋ_k (x, y only); the pivot is at rest.
Eigen::Vector2d linkVelocity(ConstVectorRef v, int k) {
  if (k == 0) return {v[0], v[1]};
  return {v[3 * k] - v[3 * k - 3], v[3 * k + 1] - v[3 * k - 2]};
}

/// θ between a and b, measured from a to b, by atan2 of cross and dot: no wrap-around for
/// |θ| < π and no division.
double relativeAngle(const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
  return std::atan2(a.x() * b.y() - a.y() * b.x(), a.dot(b));
}

}  // namespace

SpringChain::SpringChain(SpringChainParams params) : params_(validated(params)), chain_(params_.chain) {}

std::string SpringChain::name() const { return "spring_chain(" + std::to_string(links()) + ")"; }

double SpringChain::jointAngle(ConstVectorRef q, int joint) const {
  if (joint < 0 || joint + 1 >= links()) {
    throwInvalid("joint", std::to_string(joint) + " is not in [0, " + std::to_string(links() - 1) + ")");
  }
  return relativeAngle(linkVector(q, params_.chain.pivot, joint), linkVector(q, params_.chain.pivot, joint + 1));
}

void SpringChain::addJointForces(ConstVectorRef q, ConstVectorRef v, VectorRef h) const {
  const double k = params_.joint_stiffness, c = params_.joint_damping;
  if (k == 0.0 && c == 0.0) return;  // a plain PendulumChain, bit for bit
  const Eigen::Vector3d& pivot = params_.chain.pivot;
  for (int j = 0; j + 1 < links(); ++j) {
    const Eigen::Vector2d a = linkVector(q, pivot, j), b = linkVector(q, pivot, j + 1);
    // θ = angle(b) − angle(a): ∇_a θ = (a_y, −a_x)/|a|², ∇_b θ = (−b_y, b_x)/|b|².
    const Eigen::Vector2d grad_a = Eigen::Vector2d(a.y(), -a.x()) / a.squaredNorm();
    const Eigen::Vector2d grad_b = Eigen::Vector2d(-b.y(), b.x()) / b.squaredNorm();
    double torque = k * relativeAngle(a, b);
    if (c != 0.0) torque += c * (grad_a.dot(linkVelocity(v, j)) + grad_b.dot(linkVelocity(v, j + 1)));
    // a = p_j − p_{j−1}, b = p_{j+1} − p_j.
    if (j > 0) h.segment<2>(3 * j - 3) -= torque * grad_a;
    h.segment<2>(3 * j) += torque * (grad_a - grad_b);
    h.segment<2>(3 * j + 3) += torque * grad_b;
  }
}

void SpringChain::bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const {
  chain_.bias(q, v, t, h);
  addJointForces(q, v, h);
}

void SpringChain::evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const {
  chain_.evaluateTerms(q, v, t, out);
  addJointForces(q, v, out.h);
}

double SpringChain::potentialEnergy(ConstVectorRef q, double t) const {
  double springs = 0.0;
  for (int j = 0; j + 1 < links(); ++j) {
    const double theta = jointAngle(q, j);
    springs += theta * theta;
  }
  return chain_.potentialEnergy(q, t) + 0.5 * params_.joint_stiffness * springs;
}

}  // namespace kktdae

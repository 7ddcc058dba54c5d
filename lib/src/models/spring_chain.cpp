#include "kktdae/models/spring_chain.hpp"

#include <cmath>

#include "kktdae/autodiff/dual.hpp"
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

template <typename S>
using Vector2Of = Eigen::Matrix<S, 2, 1>;

/// Link k's vector d_k = p_k − p_{k−1} (x, y only), over any scalar (double, or a Dual for the tangent).
template <typename S, typename X>
Vector2Of<S> linkVector(const X& x, const Eigen::Vector3d& pivot, int k) {
  if (k == 0) return {x[0] - pivot[0], x[1] - pivot[1]};
  return {x[3 * k] - x[3 * k - 3], x[3 * k + 1] - x[3 * k - 2]};
}

/// Link k's velocity ḋ_k (x, y only); the pivot is at rest.
template <typename S, typename V>
Vector2Of<S> linkVelocity(const V& v, int k) {
  if (k == 0) return {v[0], v[1]};
  return {v[3 * k] - v[3 * k - 3], v[3 * k + 1] - v[3 * k - 2]};
}

/// θ between a and b, measured from a to b, by atan2 of cross and dot: no wrap-around for
/// |θ| < π and no division.
template <typename S>
S relativeAngle(const Vector2Of<S>& a, const Vector2Of<S>& b) {
  using std::atan2;
  return atan2(a.x() * b.y() - a.y() * b.x(), a.dot(b));
}

/// h += Σ_j (k θ_j + c θ̇_j) ∇θ_j over N links, at (q, v) of scalar S; k and c are constants.
template <typename S, typename Q, typename V, typename H>
void addJointForcesOf(int links, const Eigen::Vector3d& pivot, double k, double c, const Q& q, const V& v, H& h) {
  for (int j = 0; j + 1 < links; ++j) {
    const Vector2Of<S> a = linkVector<S>(q, pivot, j), b = linkVector<S>(q, pivot, j + 1);
    // θ = angle(b) − angle(a): ∇_a θ = (a_y, −a_x)/|a|², ∇_b θ = (−b_y, b_x)/|b|².
    const Vector2Of<S> grad_a = Vector2Of<S>(a.y(), -a.x()) / a.squaredNorm();
    const Vector2Of<S> grad_b = Vector2Of<S>(-b.y(), b.x()) / b.squaredNorm();
    S torque = k * relativeAngle<S>(a, b);
    if (c != 0.0) torque += c * (grad_a.dot(linkVelocity<S>(v, j)) + grad_b.dot(linkVelocity<S>(v, j + 1)));
    // a = p_j − p_{j−1}, b = p_{j+1} − p_j.
    if (j > 0) h.template segment<2>(3 * j - 3) -= torque * grad_a;
    h.template segment<2>(3 * j) += torque * (grad_a - grad_b);
    h.template segment<2>(3 * j + 3) += torque * grad_b;
  }
}

}  // namespace

SpringChain::SpringChain(SpringChainParams params) : params_(validated(params)), chain_(params_.chain) {}

std::string SpringChain::name() const { return "spring_chain(" + std::to_string(links()) + ")"; }

double SpringChain::jointAngle(ConstVectorRef q, int joint) const {
  if (joint < 0 || joint + 1 >= links()) {
    throwInvalid("joint", std::to_string(joint) + " is not in [0, " + std::to_string(links() - 1) + ")");
  }
  return relativeAngle<double>(linkVector<double>(q, params_.chain.pivot, joint),
                               linkVector<double>(q, params_.chain.pivot, joint + 1));
}

void SpringChain::addJointForces(ConstVectorRef q, ConstVectorRef v, VectorRef h) const {
  const double k = params_.joint_stiffness, c = params_.joint_damping;
  if (k == 0.0 && c == 0.0) return;  // a plain PendulumChain, bit for bit
  addJointForcesOf<double>(links(), params_.chain.pivot, k, c, q, v, h);
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

std::string SpringChain::parameterName(int i) const {
  const int n = chain_.np();
  if (i == n) return "joint_stiffness";
  if (i == n + 1) return "joint_damping";
  if (i < 0 || i > n + 1) {
    throwInvalid("parameter index", std::to_string(i) + " is not in [0, " + std::to_string(np()) + ") for " + name());
  }
  return chain_.parameterName(i);
}

Vector SpringChain::parameterValues() const {
  Vector p(np());
  p << chain_.parameterValues(), params_.joint_stiffness, params_.joint_damping;
  return p;
}

std::unique_ptr<ParametricSystem> SpringChain::withParameterValues(ConstVectorRef p) const {
  requireSize("p", p.size(), np());
  SpringChainParams changed = params_;
  for (int k = 0; k < links(); ++k) changed.chain.masses[static_cast<std::size_t>(k)] = p[k];
  changed.chain.gravity = p[links()];
  changed.joint_stiffness = p[links() + 1];
  changed.joint_damping = p[links() + 2];
  return std::make_unique<SpringChain>(std::move(changed));
}

void SpringChain::dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                            MatrixRef D) const {
  const int n = chain_.np();
  chain_.dynamicsParameterJacobian(q, v, a, t, D.leftCols(n));
  D.rightCols(2).setZero();
  Eigen::Ref<Vector> stiffness = D.col(n), damping = D.col(n + 1);
  addJointForcesOf<double>(links(), params_.chain.pivot, 1.0, 0.0, q, v, stiffness);
  addJointForcesOf<double>(links(), params_.chain.pivot, 0.0, 1.0, q, v, damping);
}

void SpringChain::termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                               ModelTermsTangent& out) const {
  chain_.termsTangent(q, v, t, dq, dv, out);
  const double k = params_.joint_stiffness, c = params_.joint_damping;
  if (k == 0.0 && c == 0.0) return;
  using D = Dual<double>;
  const int n = nq();
  Eigen::Matrix<D, Eigen::Dynamic, 1> q_dual(n), v_dual(n), h_dual(n);
  for (int i = 0; i < n; ++i) {
    q_dual[i] = D(q[i], dq[i]);
    v_dual[i] = D(v[i], dv[i]);
    h_dual[i] = D(0.0, 0.0);
  }
  addJointForcesOf<D>(links(), params_.chain.pivot, k, c, q_dual, v_dual, h_dual);
  for (int i = 0; i < n; ++i) out.h[i] += h_dual[i].derivative;
}

}  // namespace kktdae

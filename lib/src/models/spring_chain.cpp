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

// p = (m_0, …, m_{N−1}, g, k, c, L_0, …, L_{N−1}): the chain's masses and gravity keep their
// indices, the lengths come last (the chain's own order puts them right after gravity).
std::string SpringChain::parameterName(int i) const {
  const int n = links();
  if (i == n + 1) return "joint_stiffness";
  if (i == n + 2) return "joint_damping";
  if (i < 0 || i >= np()) {
    throwInvalid("parameter index", std::to_string(i) + " is not in [0, " + std::to_string(np()) + ") for " + name());
  }
  return chain_.parameterName(i <= n ? i : i - 2);
}

Vector SpringChain::parameterValues() const {
  const int n = links();
  const Vector chain = chain_.parameterValues();
  Vector p(np());
  p << chain.head(n + 1), params_.joint_stiffness, params_.joint_damping, chain.tail(n);
  return p;
}

std::unique_ptr<ParametricSystem> SpringChain::withParameterValues(ConstVectorRef p) const {
  requireSize("p", p.size(), np());
  const int n = links();
  SpringChainParams changed = params_;
  for (int k = 0; k < n; ++k) {
    changed.chain.masses[static_cast<std::size_t>(k)] = p[k];
    changed.chain.lengths[static_cast<std::size_t>(k)] = p[n + 3 + k];
  }
  changed.chain.gravity = p[n];
  changed.joint_stiffness = p[n + 1];
  changed.joint_damping = p[n + 2];
  return std::make_unique<SpringChain>(std::move(changed));
}

void SpringChain::dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                            MatrixRef D) const {
  const int n = links();
  // The chain's D (masses, gravity, then its zero length columns) fills the first 2N + 1
  // columns; k and c then take columns N + 1 and N + 2, and the lengths' columns are zero.
  chain_.dynamicsParameterJacobian(q, v, a, t, D.leftCols(chain_.np()));
  D.rightCols(np() - n - 1).setZero();
  Eigen::Ref<Vector> stiffness = D.col(n + 1), damping = D.col(n + 2);
  addJointForcesOf<double>(links(), params_.chain.pivot, 1.0, 0.0, q, v, stiffness);
  addJointForcesOf<double>(links(), params_.chain.pivot, 0.0, 1.0, q, v, damping);
}

void SpringChain::constraintParameterJacobian(ConstVectorRef, double, MatrixRef P) const {
  const int n = links();
  P.setZero();
  for (int k = 0; k < n; ++k) P(k, n + 3 + k) = -params_.chain.lengths[static_cast<std::size_t>(k)];
}

void SpringChain::constraintParameterTangent(ConstVectorRef, ConstVectorRef, double, int parameter,
                                             ConstraintParameterTangent& out) const {
  if (parameter < 0 || parameter >= np()) parameterName(parameter);  // throws naming the index
  out.J.setZero();
  out.gamma.setZero();
  out.phi_t.setZero();
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

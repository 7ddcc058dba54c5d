#include "kktdae/models/spring_slider_crank.hpp"

#include <cmath>
#include <stdexcept>

#include "kktdae/autodiff/dual.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {

void SpringSliderCrankParams::validate() const {
  if (!(std::isfinite(a) && a > 0.0 && a < 1.0)) {
    throw std::invalid_argument("SpringSliderCrankParams: a must be in (0, 1), got " + formatDouble(a));
  }
  requirePositive("crank_inertia", crank_inertia);
  requirePositive("rod_mass", rod_mass);
  requirePositive("rod_inertia", rod_inertia);
  requireNonNegative("stiffness", stiffness);
  requireNonNegative("damping", damping);
  requireNonNegative("free_length", free_length);
  if (!std::isfinite(force)) {
    throw std::invalid_argument("SpringSliderCrankParams: force must be finite, got " + formatDouble(force));
  }
}

namespace {

/// Everything the model computes, over any scalar (double for the terms, Dual<double> for their
/// tangent): the spring's length l, its rate l̇ and gradient ∇l, and h, J, γ.
template <typename S>
struct CrankTerms {
  S l, l_dot;
  S grad_l[3];
  S h[3];
  S J[2][3];
  S gamma[2];
};

template <typename S>
CrankTerms<S> crankTerms(const SpringSliderCrankParams& p, const S* q, const S* v) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  CrankTerms<S> out;
  const double a = p.a;
  const S s1 = sin(q[0]), c1 = cos(q[0]), s2 = sin(q[2]), c2 = cos(q[2]);
  const S s21 = s2 * c1 - c2 * s1;  // sin(ψ − θ)
  const S c21 = c2 * c1 + s2 * s1;  // cos(ψ − θ)
  const S x = q[1];
  const S l_squared = x * x - x * (c2 + a * c1) + (1.0 + a * a) / 4.0 + a * c21 / 2.0;
  out.l = sqrt(l_squared);
  const S grad_l_squared[3] = {a * x * s1 + a * s21 / 2.0, 2.0 * x - (c2 + a * c1), x * s2 - a * s21 / 2.0};
  out.l_dot = S(0.0);
  for (int i = 0; i < 3; ++i) {
    out.grad_l[i] = grad_l_squared[i] / (2.0 * out.l);
    out.l_dot += out.grad_l[i] * v[i];
  }
  const S tension = p.stiffness * (out.l - p.free_length) + p.damping * out.l_dot;
  for (int i = 0; i < 3; ++i) out.h[i] = tension * out.grad_l[i];
  out.h[1] -= p.force;
  out.h[2] += p.force * s2;  // F along x at a point whose x is x + cos ψ: −F ∂(x + cos ψ)/∂q
  out.J[0][0] = a * s1;
  out.J[0][1] = S(1.0);
  out.J[0][2] = s2;
  out.J[1][0] = -a * c1;
  out.J[1][1] = S(0.0);
  out.J[1][2] = -c2;
  const S crank_rate2 = v[0] * v[0], rod_rate2 = v[2] * v[2];
  out.gamma[0] = a * c1 * crank_rate2 + c2 * rod_rate2;
  out.gamma[1] = a * s1 * crank_rate2 + s2 * rod_rate2;
  return out;
}

CrankTerms<double> crankTerms(const SpringSliderCrankParams& p, ConstVectorRef q, ConstVectorRef v) {
  const double qq[3] = {q[0], q[1], q[2]}, vv[3] = {v[0], v[1], v[2]};
  return crankTerms<double>(p, qq, vv);
}

}  // namespace

SpringSliderCrank::SpringSliderCrank(SpringSliderCrankParams params) : params_(params) { params_.validate(); }

void SpringSliderCrank::massDiagonal(ConstVectorRef, VectorRef d) const {
  d << params_.crank_inertia, params_.rod_mass, params_.rod_inertia;
}

void SpringSliderCrank::bias(ConstVectorRef q, ConstVectorRef v, double, VectorRef h) const {
  const CrankTerms<double> terms = crankTerms(params_, q, v);
  for (int i = 0; i < 3; ++i) h[i] = terms.h[i];
}

void SpringSliderCrank::constraint(ConstVectorRef q, double, VectorRef phi) const {
  phi[0] = q[1] - std::cos(q[2]) - params_.a * std::cos(q[0]);
  phi[1] = -std::sin(q[2]) - params_.a * std::sin(q[0]);
}

void SpringSliderCrank::constraintJacobian(ConstVectorRef q, double, MatrixRef J) const {
  const CrankTerms<double> terms = crankTerms(params_, q, Vector::Zero(3));
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) J(r, c) = terms.J[r][c];
  }
}

void SpringSliderCrank::constraintBias(ConstVectorRef q, ConstVectorRef v, double, VectorRef gamma) const {
  const CrankTerms<double> terms = crankTerms(params_, q, v);
  gamma << terms.gamma[0], terms.gamma[1];
}

double SpringSliderCrank::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  return 0.5 * (params_.crank_inertia * v[0] * v[0] + params_.rod_mass * v[1] * v[1] +
                params_.rod_inertia * v[2] * v[2]);
}

double SpringSliderCrank::potentialEnergy(ConstVectorRef q, double) const {
  const CrankTerms<double> terms = crankTerms(params_, q, Vector::Zero(3));
  const double stretch = terms.l - params_.free_length;
  return 0.5 * params_.stiffness * stretch * stretch - params_.force * (q[1] + std::cos(q[2]));
}

std::string SpringSliderCrank::parameterName(int i) const {
  if (i == 0) return "k";
  if (i == 1) return "c";
  throw std::invalid_argument("spring_slider_crank has parameters 0 (k) and 1 (c), asked for " + std::to_string(i));
}

Vector SpringSliderCrank::parameterValues() const {
  Vector p(2);
  p << params_.stiffness, params_.damping;
  return p;
}

std::unique_ptr<ParametricSystem> SpringSliderCrank::withParameterValues(ConstVectorRef p) const {
  requireSize("p", p.size(), 2);
  SpringSliderCrankParams changed = params_;
  changed.stiffness = p[0];
  changed.damping = p[1];
  return std::make_unique<SpringSliderCrank>(changed);  // validate() names a bad k or c
}

void SpringSliderCrank::dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef, double,
                                                  MatrixRef D) const {
  const CrankTerms<double> terms = crankTerms(params_, q, v);
  for (int i = 0; i < 3; ++i) {
    D(i, 0) = (terms.l - params_.free_length) * terms.grad_l[i];
    D(i, 1) = terms.l_dot * terms.grad_l[i];
  }
}

void SpringSliderCrank::termsTangent(ConstVectorRef q, ConstVectorRef v, double, ConstVectorRef dq,
                                     ConstVectorRef dv, ModelTermsTangent& out) const {
  using D = Dual<double>;
  const D qd[3] = {D(q[0], dq[0]), D(q[1], dq[1]), D(q[2], dq[2])};
  const D vd[3] = {D(v[0], dv[0]), D(v[1], dv[1]), D(v[2], dv[2])};
  const CrankTerms<D> terms = crankTerms<D>(params_, qd, vd);
  out.M.setZero();
  for (int i = 0; i < 3; ++i) out.h[i] = terms.h[i].derivative;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) out.J(r, c) = terms.J[r][c].derivative;
    out.gamma[r] = terms.gamma[r].derivative;
  }
  out.phi_t.setZero();
}

State SpringSliderCrank::initialState() const {
  State state;
  const double rod_angle = std::asin(-params_.a);
  state.q = Vector(3);
  state.q << std::acos(-1.0) / 2.0, std::cos(rod_angle), rod_angle;
  state.v = Vector::Zero(3);
  return state;
}

}  // namespace kktdae

#include "kktdae/sensitivity/parametric_system.hpp"

#include <algorithm>
#include <stdexcept>

#include "kktdae/core/checks.hpp"

namespace kktdae {

namespace {

/// A model that declares p inside φ must say how φ's terms depend on p: zeros would be wrong.
[[noreturn]] void throwMissingConstraintDerivative(const std::string& model, const char* method) {
  throw std::invalid_argument(model + " declares constraintsDependOnParameters() but does not override " + method +
                              " (zeros would be wrong)");
}

}  // namespace

void ParametricSystem::constraintParameterJacobian(ConstVectorRef, double, MatrixRef P) const {
  if (constraintsDependOnParameters()) throwMissingConstraintDerivative(name(), "constraintParameterJacobian()");
  P.setZero();
}

void ParametricSystem::constraintParameterTangent(ConstVectorRef, ConstVectorRef, double, int,
                                                  ConstraintParameterTangent& out) const {
  if (constraintsDependOnParameters()) throwMissingConstraintDerivative(name(), "constraintParameterTangent()");
  out.J.setZero();
  out.gamma.setZero();
  out.phi_t.setZero();
}

std::vector<std::string> ParametricSystem::parameterNames() const {
  std::vector<std::string> names;
  for (int i = 0; i < np(); ++i) names.push_back(parameterName(i));
  return names;
}

int ParametricSystem::parameterIndex(const std::string& name) const {
  std::string known;
  for (int i = 0; i < np(); ++i) {
    if (parameterName(i) == name) return i;
    known += (i == 0 ? "" : ", ") + parameterName(i);
  }
  throw std::invalid_argument(this->name() + " has no parameter '" + name + "' (its parameters: " + known + ")");
}

namespace {

/// M, h, J, γ, ∂φ/∂t and φ of one model at one point, for the differences below.
struct Terms {
  Matrix M, J;
  Vector h, gamma, phi_t, phi;
  Terms(const ConstrainedSystem& s, ConstVectorRef q, ConstVectorRef v, double t)
      : M(s.nq(), s.nq()), J(s.nc(), s.nq()), h(s.nq()), gamma(s.nc()), phi_t(s.nc()), phi(s.nc()) {
    Vector no_values;
    ModelTermsOutput out{h, phi, J, no_values, gamma, phi_t};
    s.evaluateTerms(q, v, t, out);
    s.massMatrix(q, M);
  }
};

double relativeError(const Matrix& exact, const Matrix& approx) {
  if (exact.size() == 0) return 0.0;
  return ((exact - approx).array().abs() / exact.array().abs().max(1.0)).maxCoeff();
}

}  // namespace

ParameterDerivativeCheck checkParameterDerivatives(const ParametricSystem& system, ConstVectorRef q,
                                                   ConstVectorRef v, ConstVectorRef a, double t, ConstVectorRef dq,
                                                   ConstVectorRef dv, double step) {
  const int nq = system.nq(), nc = system.nc(), np = system.np();
  requireSize("q", q.size(), nq);
  requireSize("v", v.size(), nq);
  requireSize("a", a.size(), nq);
  requireSize("dq", dq.size(), nq);
  requireSize("dv", dv.size(), nq);
  if (!(step > 0.0 && step <= 0.1)) {
    throw std::invalid_argument("checkParameterDerivatives: step must be in (0, 0.1], got " + formatDouble(step));
  }
  ParameterDerivativeCheck check;
  const Vector p = system.parameterValues();
  Matrix D(nq, np), P(nc, np), D_diff(nq, np), P_diff(nc, np);
  system.dynamicsParameterJacobian(q, v, a, t, D);
  system.constraintParameterJacobian(q, t, P);
  Matrix dJ_dp(nc, nq);
  Vector dgamma_dp(nc), dphi_t_dp(nc);
  ConstraintParameterTangent parameter_tangent{dJ_dp, dgamma_dp, dphi_t_dp};
  for (int i = 0; i < np; ++i) {
    const double delta = step * std::max(1.0, std::abs(p[i]));
    Vector p_plus = p, p_minus = p;
    p_plus[i] += delta;
    p_minus[i] -= delta;
    const Terms plus(*system.withParameterValues(p_plus), q, v, t);
    const Terms minus(*system.withParameterValues(p_minus), q, v, t);
    D_diff.col(i) = ((plus.M * a + plus.h) - (minus.M * a + minus.h)) / (2.0 * delta);
    P_diff.col(i) = (plus.phi - minus.phi) / (2.0 * delta);
    system.constraintParameterTangent(q, v, t, i, parameter_tangent);
    check.constraint_tangent_error =
        std::max({check.constraint_tangent_error, relativeError(dJ_dp, (plus.J - minus.J) / (2.0 * delta)),
                  relativeError(dgamma_dp, (plus.gamma - minus.gamma) / (2.0 * delta)),
                  relativeError(dphi_t_dp, (plus.phi_t - minus.phi_t) / (2.0 * delta))});
  }
  check.dynamics_parameter_error = relativeError(D, D_diff);
  check.constraint_parameter_error = relativeError(P, P_diff);

  Matrix dM(nq, nq), dJ(nc, nq);
  Vector dh(nq), dgamma(nc), dphi_t(nc);
  ModelTermsTangent tangent{dM, dh, dJ, dgamma, dphi_t};
  system.termsTangent(q, v, t, dq, dv, tangent);
  const Terms plus(system, q + step * dq, v + step * dv, t);
  const Terms minus(system, q - step * dq, v - step * dv, t);
  const double two_step = 2.0 * step;
  check.tangent_error = std::max({relativeError(dM, (plus.M - minus.M) / two_step),
                                  relativeError(dh, (plus.h - minus.h) / two_step),
                                  relativeError(dJ, (plus.J - minus.J) / two_step),
                                  relativeError(dgamma, (plus.gamma - minus.gamma) / two_step),
                                  relativeError(dphi_t, (plus.phi_t - minus.phi_t) / two_step)});
  return check;
}

}  // namespace kktdae

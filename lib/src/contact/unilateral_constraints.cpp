#include "kktdae/contact/unilateral_constraints.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kktdae/core/checks.hpp"

namespace kktdae::contact {

void UnilateralConstraints::gapTimeDerivative(ConstVectorRef /*q*/, double /*t*/, VectorRef g_t) const {
  g_t.setZero();
}

namespace {

std::string quoted(const UnilateralConstraints& gaps, int k) {
  return "gap " + std::to_string(k) + " '" + gaps.gapName(k) + "'";
}

}  // namespace

void validateGaps(const ConstrainedSystem& system, const UnilateralConstraints& gaps, ConstVectorRef q, double t) {
  const int ng = gaps.ng();
  if (ng < 0) throw std::invalid_argument("contact: ng() = " + std::to_string(ng) + " < 0");
  requireSize("q", q.size(), system.nq());
  for (int k = 0; k < ng; ++k) {
    const double e = gaps.restitution(k);
    if (!(e >= 0.0 && e <= 1.0)) {
      throw std::invalid_argument("contact: " + quoted(gaps, k) + " has restitution e = " + formatDouble(e) +
                                  " outside [0, 1]");
    }
  }
  if (ng == 0) return;
  Matrix J_N = Matrix::Constant(ng, system.nq(), std::numeric_limits<double>::quiet_NaN());
  gaps.gapJacobian(q, t, J_N);
  for (int k = 0; k < ng; ++k) {
    if (!J_N.row(k).allFinite()) {
      throw std::invalid_argument("contact: " + quoted(gaps, k) + " has a non-finite (or unwritten) Jacobian row at t = " +
                                  formatDouble(t));
    }
    if (J_N.row(k).lpNorm<Eigen::Infinity>() == 0.0) {
      throw std::invalid_argument("contact: " + quoted(gaps, k) + " has a zero Jacobian row at t = " + formatDouble(t) +
                                  ": no motion opens or closes it, so no contact force can act through it");
    }
  }
}

GapDerivativeCheck checkGapDerivatives(const UnilateralConstraints& gaps, ConstVectorRef q, ConstVectorRef v, double t,
                                       double h) {
  if (q.size() != v.size()) throw std::invalid_argument("checkGapDerivatives: q and v sizes differ");
  const int ng = gaps.ng();
  const Eigen::Index nq = q.size();
  GapDerivativeCheck check;
  if (ng == 0) return check;
  Matrix J_N(ng, nq);
  gaps.gapJacobian(q, t, J_N);
  Vector g_t(ng), gamma_N(ng), gp(ng), gm(ng);
  gaps.gapTimeDerivative(q, t, g_t);
  gaps.gapBias(q, v, t, gamma_N);
  auto note = [&](double& slot, const Vector& err, double scale) {
    Eigen::Index k = 0;
    const double m = err.cwiseAbs().maxCoeff(&k) / std::max(1.0, scale);
    if (m > slot) slot = m;
    if (m >= std::max({check.jacobian_error, check.time_error, check.bias_error})) check.worst_gap = static_cast<int>(k);
  };
  const double jscale = J_N.lpNorm<Eigen::Infinity>();
  Vector qp = q, qm = q;
  for (Eigen::Index i = 0; i < nq; ++i) {
    qp = q;
    qm = q;
    qp[i] += h;
    qm[i] -= h;
    gaps.gap(qp, t, gp);
    gaps.gap(qm, t, gm);
    note(check.jacobian_error, (gp - gm) / (2 * h) - J_N.col(i), jscale);
  }
  gaps.gap(q, t + h, gp);
  gaps.gap(q, t - h, gm);
  note(check.time_error, (gp - gm) / (2 * h) - g_t, g_t.lpNorm<Eigen::Infinity>());
  // γ_N = d/ds ġ(q + s q̇, t + s) at fixed q̇ (the part of g̈ without q̈).
  auto gdot = [&](double s) {
    Matrix Js(ng, nq);
    Vector gts(ng);
    const Vector qs = q + s * v;
    gaps.gapJacobian(qs, t + s, Js);
    gaps.gapTimeDerivative(qs, t + s, gts);
    return Vector(Js * v + gts);
  };
  note(check.bias_error, (gdot(h) - gdot(-h)) / (2 * h) - gamma_N, gamma_N.lpNorm<Eigen::Infinity>());
  return check;
}

JointLimit JointLimit::lower(std::string name, int i, double a, double e) {
  return JointLimit{std::move(name), {i}, {1.0}, a, false, e};
}

JointLimit JointLimit::upperBound(std::string name, int i, double b, double e) {
  return JointLimit{std::move(name), {i}, {1.0}, b, true, e};
}

JointLimits::JointLimits(int nq, std::vector<JointLimit> limits) : nq_(nq), limits_(std::move(limits)) {
  if (nq < 1) throw std::invalid_argument("JointLimits: nq = " + std::to_string(nq) + " < 1");
  for (std::size_t k = 0; k < limits_.size(); ++k) {
    const JointLimit& l = limits_[k];
    const std::string who = "JointLimits: limit " + std::to_string(k) + " '" + l.name + "'";
    if (l.name.empty()) throw std::invalid_argument("JointLimits: limit " + std::to_string(k) + " has an empty name");
    if (l.index.empty() || l.index.size() != l.coefficient.size()) {
      throw std::invalid_argument(who + ": " + std::to_string(l.index.size()) + " indices and " +
                                  std::to_string(l.coefficient.size()) + " coefficients (need the same number, ≥ 1)");
    }
    bool any = false;
    for (std::size_t j = 0; j < l.index.size(); ++j) {
      if (l.index[j] < 0 || l.index[j] >= nq) {
        throw std::invalid_argument(who + ": coordinate index " + std::to_string(l.index[j]) + " outside [0, " +
                                    std::to_string(nq) + ")");
      }
      if (!std::isfinite(l.coefficient[j])) throw std::invalid_argument(who + ": a coefficient is not finite");
      any = any || l.coefficient[j] != 0.0;
    }
    if (!any) throw std::invalid_argument(who + ": all coefficients are zero (the gap's Jacobian row would be zero)");
    if (!std::isfinite(l.bound)) throw std::invalid_argument(who + ": bound = " + formatDouble(l.bound) + " is not finite");
    if (!(l.restitution >= 0.0 && l.restitution <= 1.0)) {
      throw std::invalid_argument(who + ": restitution e = " + formatDouble(l.restitution) + " outside [0, 1]");
    }
  }
}

std::string JointLimits::gapName(int k) const { return limits_.at(static_cast<std::size_t>(k)).name; }

double JointLimits::restitution(int k) const { return limits_.at(static_cast<std::size_t>(k)).restitution; }

void JointLimits::gap(ConstVectorRef q, double /*t*/, VectorRef g) const {
  for (std::size_t k = 0; k < limits_.size(); ++k) {
    const JointLimit& l = limits_[k];
    double s = 0.0;
    for (std::size_t j = 0; j < l.index.size(); ++j) s += l.coefficient[j] * q[l.index[j]];
    g[static_cast<Eigen::Index>(k)] = l.upper ? l.bound - s : s - l.bound;
  }
}

void JointLimits::gapJacobian(ConstVectorRef /*q*/, double /*t*/, MatrixRef J_N) const {
  J_N.setZero();
  for (std::size_t k = 0; k < limits_.size(); ++k) {
    const JointLimit& l = limits_[k];
    for (std::size_t j = 0; j < l.index.size(); ++j) {
      J_N(static_cast<Eigen::Index>(k), l.index[j]) += l.upper ? -l.coefficient[j] : l.coefficient[j];
    }
  }
}

void JointLimits::gapBias(ConstVectorRef /*q*/, ConstVectorRef /*v*/, double /*t*/, VectorRef gamma_N) const {
  gamma_N.setZero();
}

}  // namespace kktdae::contact

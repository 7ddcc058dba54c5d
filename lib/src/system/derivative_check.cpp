#include "kktdae/system/derivative_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

double maxAbs(ConstMatrixRef m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

/// φ̇(q, t) = J(q, t) v + ∂φ/∂t(q, t) for a fixed v.
Vector constraintRate(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v, double t) {
  Matrix J(system.nc(), system.nq());
  Vector phi_t(system.nc());
  system.constraintJacobian(q, t, J);
  system.constraintTimeDerivative(q, t, phi_t);
  return J * v + phi_t;
}

}  // namespace

void DerivativeCheckOptions::validate() const { requirePositive("relative_step", relative_step); }

double DerivativeCheckReport::worstRelativeError() const {
  // A broken sparse pattern (−1) counts as an error of 1: as bad as a wrong sign.
  const double sparse = sparse_jacobian_error < 0.0 ? 1.0 : sparse_jacobian_error / std::max(1.0, jacobian_scale);
  return std::max({jacobian_error / std::max(1.0, jacobian_scale), time_derivative_error / std::max(1.0, jacobian_scale),
                   bias_error / std::max(1.0, bias_scale), mass_asymmetry, sparse});
}

std::string DerivativeCheckReport::describe() const {
  char text[320];
  std::snprintf(text, sizeof text,
                "J err %.3e (|J| %.3e), dphi/dt err %.3e, gamma err %.3e (|gamma| %.3e), M asym %.3e, sparse J err %.3e",
                jacobian_error, jacobian_scale, time_derivative_error, bias_error, bias_scale, mass_asymmetry,
                sparse_jacobian_error);
  return text;
}

DerivativeCheckReport checkDerivatives(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v,
                                       double t, const DerivativeCheckOptions& options) {
  options.validate();
  checkStateSizes(system, q, v);
  const int nq = system.nq();
  const int nc = system.nc();
  DerivativeCheckReport report;

  Matrix J(nc, nq);
  system.constraintJacobian(q, t, J);
  report.jacobian_scale = maxAbs(J);
  Vector q_plus = q, q_minus = q, phi_plus(nc), phi_minus(nc);
  for (int i = 0; i < nq; ++i) {
    const double step = options.relative_step * std::max(1.0, std::abs(q[i]));
    q_plus[i] = q[i] + step;
    q_minus[i] = q[i] - step;
    system.constraint(q_plus, t, phi_plus);
    system.constraint(q_minus, t, phi_minus);
    report.jacobian_error = std::max(
        report.jacobian_error, maxAbs(J.col(i) - (phi_plus - phi_minus) / (q_plus[i] - q_minus[i])));
    q_plus[i] = q_minus[i] = q[i];
  }

  const double time_step = options.relative_step * std::max(1.0, std::abs(t));
  Vector phi_t(nc);
  system.constraintTimeDerivative(q, t, phi_t);
  system.constraint(q, t + time_step, phi_plus);
  system.constraint(q, t - time_step, phi_minus);
  report.time_derivative_error = maxAbs(phi_t - (phi_plus - phi_minus) / (2.0 * time_step));

  // γ is the derivative of φ̇ along s ↦ (q + s v, t + s) with v held fixed.
  Vector gamma(nc);
  system.constraintBias(q, v, t, gamma);
  report.bias_scale = maxAbs(gamma);
  const double scale = std::max({1.0, q.cwiseAbs().maxCoeff(), std::abs(t)});
  const double s = options.relative_step * scale / std::max(1.0, v.cwiseAbs().maxCoeff());
  const Vector rate_plus = constraintRate(system, q + s * v, v, t + s);
  const Vector rate_minus = constraintRate(system, q - s * v, v, t - s);
  report.bias_error = maxAbs(gamma - (rate_plus - rate_minus) / (2.0 * s));

  Matrix M(nq, nq);
  system.massMatrix(q, M);
  report.mass_asymmetry = maxAbs(M - M.transpose());

  const int non_zeros = system.jacobianNonZeros();
  if (non_zeros > 0) {
    IndexVector rows(non_zeros), cols(non_zeros);
    Vector values(non_zeros);
    system.constraintJacobianPattern(rows, cols);
    system.constraintJacobianValues(q, t, values);
    Matrix sparse = Matrix::Zero(nc, nq);
    Eigen::MatrixXi seen = Eigen::MatrixXi::Zero(nc, nq);
    bool valid = true;
    for (int k = 0; k < non_zeros && valid; ++k) {
      valid = rows[k] >= 0 && rows[k] < nc && cols[k] >= 0 && cols[k] < nq && seen(rows[k], cols[k]) == 0;
      if (valid) {
        seen(rows[k], cols[k]) = 1;
        sparse(rows[k], cols[k]) = values[k];
      }
    }
    report.sparse_jacobian_error = valid ? maxAbs(J - sparse) : -1.0;
  }
  return report;
}

}  // namespace kktdae

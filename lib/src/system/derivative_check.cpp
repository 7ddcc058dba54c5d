#include "kktdae/system/derivative_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "kktdae/core/checks.hpp"
#include "system/entry_summaries.hpp"

namespace kktdae {
namespace {

using detail::kNaN;
using detail::largestMagnitude;

/// Keeps the largest |got − expected| seen and where it was; a NaN deviation wins and stays,
/// because it means an output the model did not write (or wrote as NaN).
class WorstTracker {
 public:
  void consider(int row, int col, double expected, double got) {
    const double error = std::abs(got - expected);
    if (std::isnan(error_)) return;
    if (std::isnan(error) || error > error_ || worst_.row < 0) {
      error_ = error;
      worst_ = {row, col, expected, got};
    }
  }
  /// Entry by entry; `col` is the column the entries carry (−1 for a vector, j for column j of J).
  void considerColumn(ConstVectorRef expected, ConstVectorRef got, int col) {
    for (Eigen::Index i = 0; i < got.size(); ++i) consider(static_cast<int>(i), col, expected[i], got[i]);
  }
  void considerMatrix(ConstMatrixRef expected, ConstMatrixRef got) {
    for (Eigen::Index j = 0; j < got.cols(); ++j) considerColumn(expected.col(j), got.col(j), static_cast<int>(j));
  }
  double error() const { return error_; }
  const DerivativeDeviation& worst() const { return worst_; }

 private:
  double error_ = 0.0;
  DerivativeDeviation worst_;
};

/// φ̇(q, t) = J(q, t) v + ∂φ/∂t(q, t) for a fixed v.
Vector constraintRate(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v, double t) {
  Matrix J = Matrix::Constant(system.nc(), system.nq(), kNaN);
  Vector phi_t = Vector::Constant(system.nc(), kNaN);
  system.constraintJacobian(q, t, J);
  system.constraintTimeDerivative(q, t, phi_t);
  return J * v + phi_t;
}

}  // namespace

void DerivativeCheckOptions::validate() const { requirePositive("relative_step", relative_step); }

double DerivativeCheckReport::worstRelativeError() const {
  const double errors[] = {jacobian_error, time_derivative_error, bias_error, mass_asymmetry, sparse_jacobian_error};
  for (double error : errors) {
    if (std::isnan(error)) return std::numeric_limits<double>::infinity();
  }
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

  Matrix J = Matrix::Constant(nc, nq, kNaN);
  system.constraintJacobian(q, t, J);
  report.jacobian_scale = largestMagnitude(J);
  WorstTracker jacobian;
  Vector q_plus = q, q_minus = q, phi_plus(nc), phi_minus(nc);
  for (int i = 0; i < nq; ++i) {
    const double step = options.relative_step * std::max(1.0, std::abs(q[i]));
    q_plus[i] = q[i] + step;
    q_minus[i] = q[i] - step;
    phi_plus.setConstant(kNaN);
    phi_minus.setConstant(kNaN);
    system.constraint(q_plus, t, phi_plus);
    system.constraint(q_minus, t, phi_minus);
    jacobian.considerColumn((phi_plus - phi_minus) / (q_plus[i] - q_minus[i]), J.col(i), i);
    q_plus[i] = q_minus[i] = q[i];
  }
  report.jacobian_error = jacobian.error();
  report.jacobian_worst = jacobian.worst();

  const double time_step = options.relative_step * std::max(1.0, std::abs(t));
  Vector phi_t = Vector::Constant(nc, kNaN);
  system.constraintTimeDerivative(q, t, phi_t);
  report.time_derivative_scale = largestMagnitude(phi_t);
  phi_plus.setConstant(kNaN);
  phi_minus.setConstant(kNaN);
  system.constraint(q, t + time_step, phi_plus);
  system.constraint(q, t - time_step, phi_minus);
  WorstTracker time_derivative;
  time_derivative.considerColumn((phi_plus - phi_minus) / (2.0 * time_step), phi_t, -1);
  report.time_derivative_error = time_derivative.error();
  report.time_derivative_worst = time_derivative.worst();

  // γ is the derivative of φ̇ along s ↦ (q + s v, t + s) with v held fixed.
  Vector gamma = Vector::Constant(nc, kNaN);
  system.constraintBias(q, v, t, gamma);
  report.bias_scale = largestMagnitude(gamma);
  const double scale = std::max({1.0, q.cwiseAbs().maxCoeff(), std::abs(t)});
  const double s = options.relative_step * scale / std::max(1.0, v.cwiseAbs().maxCoeff());
  const Vector rate_plus = constraintRate(system, q + s * v, v, t + s);
  const Vector rate_minus = constraintRate(system, q - s * v, v, t - s);
  WorstTracker bias;
  bias.considerColumn((rate_plus - rate_minus) / (2.0 * s), gamma, -1);
  report.bias_error = bias.error();
  report.bias_worst = bias.worst();

  Matrix M = Matrix::Constant(nq, nq, kNaN);
  system.massMatrix(q, M);
  report.mass_asymmetry = largestMagnitude(M - M.transpose());

  const int non_zeros = system.jacobianNonZeros();
  if (non_zeros > 0) {
    // −1 is out of range: an unwritten position reads as a broken pattern, deterministically.
    IndexVector rows = IndexVector::Constant(non_zeros, -1), cols = IndexVector::Constant(non_zeros, -1);
    Vector values = Vector::Constant(non_zeros, kNaN);
    system.constraintJacobianPattern(rows, cols);
    system.constraintJacobianValues(q, t, values);
    Matrix sparse = Matrix::Zero(nc, nq);
    Eigen::MatrixXi seen = Eigen::MatrixXi::Zero(nc, nq);
    for (int k = 0; k < non_zeros && report.sparse_pattern_bad_entry < 0; ++k) {
      const bool valid = rows[k] >= 0 && rows[k] < nc && cols[k] >= 0 && cols[k] < nq && seen(rows[k], cols[k]) == 0;
      if (valid) {
        seen(rows[k], cols[k]) = 1;
        sparse(rows[k], cols[k]) = values[k];
      } else {
        report.sparse_pattern_bad_entry = k;
      }
    }
    if (report.sparse_pattern_bad_entry >= 0) {
      report.sparse_jacobian_error = -1.0;
    } else {
      WorstTracker sparse_jacobian;
      sparse_jacobian.considerMatrix(J, sparse);
      report.sparse_jacobian_error = sparse_jacobian.error();
      report.sparse_jacobian_worst = sparse_jacobian.worst();
    }
  }
  return report;
}

}  // namespace kktdae

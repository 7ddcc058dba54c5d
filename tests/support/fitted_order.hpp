#pragma once
// The observed convergence order of a dt sweep: the least-squares slope of log(error) on log(dt).

#include <Eigen/QR>
#include <cmath>
#include <vector>

namespace kktdae::testing {

/// Least-squares slope of log(error) against log(dt).
inline double fittedOrder(const std::vector<double>& dts, const std::vector<double>& errors) {
  Eigen::MatrixXd A(dts.size(), 2);
  Eigen::VectorXd b(dts.size());
  for (std::size_t i = 0; i < dts.size(); ++i) {
    A(i, 0) = std::log(dts[i]);
    A(i, 1) = 1.0;
    b[i] = std::log(errors[i]);
  }
  return A.colPivHouseholderQr().solve(b)[0];
}

}  // namespace kktdae::testing

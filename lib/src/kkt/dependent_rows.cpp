#include "dependent_rows.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

namespace kktdae::detail {

std::vector<int> dependentConstraintRows(ConstMatrixRef J) {
  std::vector<int> rows;
  if (J.rows() == 0) return rows;
  if (!J.allFinite()) return nonFiniteRows(J);
  Eigen::ColPivHouseholderQR<Matrix> qr(J.transpose());
  qr.setThreshold(static_cast<double>(J.rows()) * std::numeric_limits<double>::epsilon());
  const Eigen::Index rank = qr.rank();
  const auto& permutation = qr.colsPermutation().indices();
  const Eigen::Index first = rank < J.rows() ? rank : J.rows() - 1;
  for (Eigen::Index i = first; i < J.rows(); ++i) rows.push_back(permutation[i]);
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<int> dependentConstraintRows(ConstMatrixRef J, double relative_threshold) {
  std::vector<int> rows;
  if (J.rows() == 0) return rows;
  if (!J.allFinite()) return nonFiniteRows(J);
  Eigen::ColPivHouseholderQR<Matrix> qr(J.transpose());
  qr.setThreshold(relative_threshold);
  const auto& permutation = qr.colsPermutation().indices();
  for (Eigen::Index i = qr.rank(); i < J.rows(); ++i) rows.push_back(permutation[i]);
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<int> nonFiniteRows(ConstMatrixRef values) {
  std::vector<int> rows;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    if (!values.row(i).allFinite()) rows.push_back(static_cast<int>(i));
  }
  return rows;
}

}  // namespace kktdae::detail

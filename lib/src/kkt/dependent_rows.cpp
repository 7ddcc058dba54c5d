#include "dependent_rows.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

namespace kktdae::detail {
namespace {

/// The rows every dependency among the rows of J runs through: the support of null(Jᵀ), from a
/// column-pivoted QR of Jᵀ = Q [R₁₁ R₁₂; 0 0] Pᵀ whose null vectors are P [−R₁₁⁻¹R₁₂; I]. A row
/// counts when some null vector weighs it above 1e-8 of that vector's largest weight: a
/// parallelogram closed twice names every row of its loop, a row written twice both copies.
/// Empty when J has full rank at `relative_threshold`.
std::vector<int> nullSupport(ConstMatrixRef J, double relative_threshold, Eigen::Index* rank_out = nullptr) {
  std::vector<int> rows;
  Eigen::ColPivHouseholderQR<Matrix> qr(J.transpose());
  qr.setThreshold(relative_threshold);
  const Eigen::Index rank = qr.rank();
  if (rank_out != nullptr) *rank_out = rank;
  const Eigen::Index nc = J.rows();
  if (rank >= nc) return rows;
  const Matrix R11 = qr.matrixR().topLeftCorner(rank, rank);
  const Matrix R12 = qr.matrixR().block(0, rank, rank, nc - rank);
  const Matrix coefficients = R11.template triangularView<Eigen::Upper>().solve(R12);  // rank × (nc − rank)
  std::vector<char> in_support(static_cast<std::size_t>(nc), 0);
  const auto& permutation = qr.colsPermutation().indices();
  for (Eigen::Index k = 0; k < nc - rank; ++k) {
    Vector null_vector(nc);  // in the permuted order
    null_vector.head(rank) = -coefficients.col(k);
    null_vector.tail(nc - rank).setZero();
    null_vector[rank + k] = 1.0;
    const double largest = null_vector.lpNorm<Eigen::Infinity>();
    for (Eigen::Index i = 0; i < nc; ++i) {
      if (std::abs(null_vector[i]) > 1e-8 * largest) in_support[static_cast<std::size_t>(permutation[i])] = 1;
    }
  }
  for (Eigen::Index i = 0; i < nc; ++i) {
    if (in_support[static_cast<std::size_t>(i)]) rows.push_back(static_cast<int>(i));
  }
  return rows;
}

}  // namespace

std::vector<int> dependentConstraintRows(ConstMatrixRef J) {
  if (J.rows() == 0) return {};
  if (!J.allFinite()) return nonFiniteRows(J);
  Eigen::Index rank = 0;
  std::vector<int> rows =
      nullSupport(J, static_cast<double>(J.rows()) * std::numeric_limits<double>::epsilon(), &rank);
  if (!rows.empty()) return rows;
  // Full numerical rank (an ill-conditioned, not a singular, J): the weakest row, the QR's last pivot.
  Eigen::ColPivHouseholderQR<Matrix> qr(J.transpose());
  return {static_cast<int>(qr.colsPermutation().indices()[J.rows() - 1])};
}

std::vector<int> dependentConstraintRows(ConstMatrixRef J, double relative_threshold) {
  if (J.rows() == 0) return {};
  if (!J.allFinite()) return nonFiniteRows(J);
  return nullSupport(J, relative_threshold);
}

std::vector<int> nonFiniteRows(ConstMatrixRef values) {
  std::vector<int> rows;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    if (!values.row(i).allFinite()) rows.push_back(static_cast<int>(i));
  }
  return rows;
}

}  // namespace kktdae::detail

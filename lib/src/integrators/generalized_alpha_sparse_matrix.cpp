#include "generalized_alpha_sparse_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "kktdae/core/checks.hpp"

namespace kktdae::detail {

namespace {

/// Throws the option-named error before SparseDynamicsJacobian would throw its own.
const ConstrainedSystem& requireSupported(const ConstrainedSystem& system) {
  const std::string reason = SparseDynamicsJacobian::unsupportedReason(system);
  if (!reason.empty()) throwInvalid("generalized_alpha.iteration_matrix", "sparse: " + reason);
  return system;
}

std::size_t uz(long i) { return static_cast<std::size_t>(i); }

}  // namespace

GeneralizedAlphaSparseMatrix::GeneralizedAlphaSparseMatrix(const ConstrainedSystem& system)
    : derivatives_(requireSupported(system)), nq_(system.nq()), nc_(system.nc()) {
  const SparseDynamicsJacobian& d = derivatives_;
  const IndexVector& rows = d.rows();
  const IndexVector& cols = d.cols();
  const int n = nq_ + nc_;
  std::vector<std::pair<int, int>> entries;  // (col, row)
  for (int k = 0; k < nq_; ++k) entries.emplace_back(k, k);
  for (int p = 0; p < d.nonZeros(); ++p) {
    entries.emplace_back(cols[p], nq_ + rows[p]);  // J
    entries.emplace_back(nq_ + rows[p], cols[p]);  // −Jᵀ
  }
  for (int i = 0; i < nc_; ++i) {
    for (int a = 0; a < d.rowSize(i); ++a) {
      for (int b = 0; b < d.rowSize(i); ++b) entries.emplace_back(cols[d.rowEntry(i, b)], cols[d.rowEntry(i, a)]);
    }
  }
  const int band = d.biasBandwidth();  // ∂h/∂(q, q̇): rows k − b … k + b of column k
  for (int k = 0; k < nq_ && band >= 0; ++k) {
    for (int i = std::max(0, k - band); i <= std::min(nq_ - 1, k + band); ++i) entries.emplace_back(k, i);
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  column_start_.assign(uz(n) + 1, 0);
  row_index_.resize(entries.size());
  for (std::size_t e = 0; e < entries.size(); ++e) {
    row_index_[e] = entries[e].second;
    ++column_start_[uz(entries[e].first) + 1];
  }
  for (int k = 0; k < n; ++k) column_start_[uz(k) + 1] += column_start_[uz(k)];
  values_ = Vector::Zero(static_cast<Eigen::Index>(row_index_.size()));

  mass_.resize(uz(nq_));
  for (int k = 0; k < nq_; ++k) mass_[uz(k)] = position(k, k);
  jacobian_.resize(uz(d.nonZeros()));
  jacobian_transpose_.resize(uz(d.nonZeros()));
  for (int p = 0; p < d.nonZeros(); ++p) {
    jacobian_[uz(p)] = position(nq_ + rows[p], cols[p]);
    jacobian_transpose_[uz(p)] = position(cols[p], nq_ + rows[p]);
  }
  const int hessian_size = nc_ > 0 ? d.hessianStart(nc_ - 1) + d.rowSize(nc_ - 1) * d.rowSize(nc_ - 1) : 0;
  hessian_.resize(uz(hessian_size));
  for (int i = 0; i < nc_; ++i) {
    const int size = d.rowSize(i);
    for (int a = 0; a < size; ++a) {
      for (int b = 0; b < size; ++b) {
        // Hᵢ(a, b) = ∂J(i, k_a)/∂q_{k_b} is ∂(Jᵀλ)_{k_a}/∂q_{k_b} per unit λᵢ: row k_a, column k_b.
        hessian_[uz(d.hessianStart(i) + a * size + b)] = position(cols[d.rowEntry(i, a)], cols[d.rowEntry(i, b)]);
      }
    }
  }

  if (band >= 0) {
    bias_.assign(uz(nq_) * uz(2 * band + 1), -1);
    for (int k = 0; k < nq_; ++k) {
      for (int i = std::max(0, k - band); i <= std::min(nq_ - 1, k + band); ++i) {
        bias_[uz(k) * uz(2 * band + 1) + uz(i - k + band)] = position(i, k);
      }
    }
  }

  lu_ = std::make_unique<KluLu>(n, column_start_.data(), row_index_.data(), "the generalized-alpha Newton matrix");
}

GeneralizedAlphaSparseMatrix::~GeneralizedAlphaSparseMatrix() = default;

long GeneralizedAlphaSparseMatrix::position(int row, int col) const {
  const auto begin = row_index_.begin() + column_start_[uz(col)];
  const auto end = row_index_.begin() + column_start_[uz(col) + 1];
  return static_cast<long>(std::lower_bound(begin, end, static_cast<long>(row)) - row_index_.begin());
}

bool GeneralizedAlphaSparseMatrix::factorize(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda,
                                             double beta_prime, double gamma_prime) {
  requireSize("generalized_alpha sparse matrix lambda", lambda.size(), nc_);
  // ∂γ/∂q̇ is not part of this matrix: no velocity differences of γ (those of h come with the band).
  derivatives_.evaluate(t, q, v, false);
  const SparseDynamicsJacobian& d = derivatives_;
  values_.setZero();
  for (int k = 0; k < nq_; ++k) values_[mass_[uz(k)]] = d.massDiagonal()[k];
  for (int p = 0; p < d.nonZeros(); ++p) {
    values_[jacobian_[uz(p)]] = d.jacobianValues()[p];
    values_[jacobian_transpose_[uz(p)]] = -d.jacobianValues()[p];
  }
  // K = −Σᵢ λᵢ Hᵢ, so β′K adds −β′λᵢ Hᵢ.
  for (int i = 0; i < nc_; ++i) {
    const int size = d.rowSize(i);
    const double weight = -beta_prime * lambda[i];
    for (int e = d.hessianStart(i); e < d.hessianStart(i) + size * size; ++e) {
      values_[hessian_[uz(e)]] += weight * d.hessianValues()[e];
    }
  }
  // The springs' and dampers' β′ ∂h/∂q + γ′ ∂h/∂q̇.
  const int band = d.biasBandwidth();
  for (int k = 0; k < nq_ && band >= 0; ++k) {
    for (int i = std::max(0, k - band); i <= std::min(nq_ - 1, k + band); ++i) {
      values_[bias_[uz(k) * uz(2 * band + 1) + uz(i - k + band)]] +=
          beta_prime * d.biasQ(i, k) + gamma_prime * d.biasV(i, k);
    }
  }
  if (!values_.allFinite()) return false;
  // λ, hence K, changes from matrix to matrix: KluLu keeps the pivots only while they stay healthy.
  return lu_->factorize(column_start_.data(), row_index_.data(), values_.data());
}

void GeneralizedAlphaSparseMatrix::solveInPlace(Eigen::Ref<Vector> x) {
  lu_->solveInPlace(x.data());
}

}  // namespace kktdae::detail

#include "ida_sparse_newton.hpp"

#include <algorithm>

#include "kktdae/core/checks.hpp"

namespace kktdae::detail {

std::string IdaSparseNewton::unsupportedReason(const ConstrainedSystem& system) {
  return SparseDynamicsJacobian::unsupportedReason(system);
}

namespace {

/// Throws the option-named error before SparseDynamicsJacobian would throw its own.
const ConstrainedSystem& requireSupported(const ConstrainedSystem& system) {
  const std::string reason = IdaSparseNewton::unsupportedReason(system);
  if (!reason.empty()) throwInvalid("adaptive.linear_solver", "sparse IDA Newton matrix: " + reason);
  return system;
}

}  // namespace

IdaSparseNewton::IdaSparseNewton(const ConstrainedSystem& system, bool ggl, const Stabilization& stabilization)
    : curvature_(requireSupported(system)),
      ggl_(ggl),
      alpha_(stabilization.kind == Stabilization::Kind::Baumgarte ? stabilization.alpha : 0.0),
      beta_(stabilization.kind == Stabilization::Kind::Baumgarte ? stabilization.beta : 0.0),
      nq_(system.nq()),
      nc_(system.nc()),
      nnz_j_(system.jacobianNonZeros()) {
  const SparseDynamicsJacobian& d = curvature_;
  const IndexVector& j_rows = d.rows();
  const IndexVector& j_cols = d.cols();

  // The pattern: every (row, col) any block writes.
  const int lambda0 = 2 * nq_, mu0 = 2 * nq_ + nc_;
  const int n = 2 * nq_ + (ggl ? 2 : 1) * nc_;
  std::vector<std::pair<int, int>> entries;  // (col, row)
  for (int k = 0; k < nq_; ++k) {
    entries.emplace_back(k, k);
    entries.emplace_back(nq_ + k, k);
    entries.emplace_back(nq_ + k, nq_ + k);
  }
  for (int p = 0; p < nnz_j_; ++p) {
    const int i = j_rows[p], k = j_cols[p];
    entries.emplace_back(lambda0 + i, nq_ + k);  // F_v × λ
    entries.emplace_back(k, lambda0 + i);        // F_c (or F_φ̇) × q
    entries.emplace_back(nq_ + k, lambda0 + i);  // F_c (or F_φ̇) × v
    if (ggl) {
      entries.emplace_back(mu0 + i, k);  // F_q × μ
      entries.emplace_back(k, mu0 + i);  // F_φ × q
    }
  }
  for (int i = 0; i < nc_; ++i) {
    for (int a = 0; a < d.rowSize(i); ++a) {
      for (int b = 0; b < d.rowSize(i); ++b) {
        const int j = j_cols[d.rowEntry(i, a)], k = j_cols[d.rowEntry(i, b)];
        entries.emplace_back(k, nq_ + j);     // F_v × q
        if (ggl) entries.emplace_back(k, j);  // F_q × q
      }
    }
  }
  const int band = d.biasBandwidth();  // ∂h/∂q and ∂h/∂v in F_v's rows: rows k − b … k + b of column k
  for (int k = 0; k < nq_ && band >= 0; ++k) {
    for (int i = std::max(0, k - band); i <= std::min(nq_ - 1, k + band); ++i) {
      entries.emplace_back(k, nq_ + i);
      entries.emplace_back(nq_ + k, nq_ + i);
    }
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  column_start_.assign(static_cast<std::size_t>(n) + 1, 0);
  row_index_.resize(entries.size());
  for (std::size_t e = 0; e < entries.size(); ++e) {
    row_index_[e] = entries[e].second;
    ++column_start_[static_cast<std::size_t>(entries[e].first) + 1];
  }
  for (int k = 0; k < n; ++k) column_start_[static_cast<std::size_t>(k) + 1] += column_start_[static_cast<std::size_t>(k)];

  auto at = [&](int row, int col) { return position(row, col); };
  q_identity_.resize(static_cast<std::size_t>(nq_));
  v_identity_.resize(static_cast<std::size_t>(nq_));
  mass_.resize(static_cast<std::size_t>(nq_));
  for (int k = 0; k < nq_; ++k) {
    q_identity_[static_cast<std::size_t>(k)] = at(k, k);
    v_identity_[static_cast<std::size_t>(k)] = at(k, nq_ + k);
    mass_[static_cast<std::size_t>(k)] = at(nq_ + k, nq_ + k);
  }
  jt_lambda_.resize(static_cast<std::size_t>(nnz_j_));
  constraint_q_.resize(static_cast<std::size_t>(nnz_j_));
  constraint_v_.resize(static_cast<std::size_t>(nnz_j_));
  if (ggl) {
    jt_mu_.resize(static_cast<std::size_t>(nnz_j_));
    position_q_.resize(static_cast<std::size_t>(nnz_j_));
  }
  for (int p = 0; p < nnz_j_; ++p) {
    const int i = j_rows[p], k = j_cols[p];
    const auto up = static_cast<std::size_t>(p);
    jt_lambda_[up] = at(nq_ + k, lambda0 + i);
    constraint_q_[up] = at(lambda0 + i, k);
    constraint_v_[up] = at(lambda0 + i, nq_ + k);
    if (ggl) {
      jt_mu_[up] = at(k, mu0 + i);
      position_q_[up] = at(mu0 + i, k);
    }
  }
  const int hessian_size = nc_ > 0 ? d.hessianStart(nc_ - 1) + d.rowSize(nc_ - 1) * d.rowSize(nc_ - 1) : 0;
  hessian_v_rows_.resize(static_cast<std::size_t>(hessian_size));
  if (ggl) hessian_q_rows_.resize(static_cast<std::size_t>(hessian_size));
  for (int i = 0; i < nc_; ++i) {
    const int size = d.rowSize(i);
    for (int a = 0; a < size; ++a) {
      for (int b = 0; b < size; ++b) {
        const int j = j_cols[d.rowEntry(i, a)];
        const int k = j_cols[d.rowEntry(i, b)];
        const auto slot = static_cast<std::size_t>(d.hessianStart(i) + a * size + b);
        hessian_v_rows_[slot] = at(nq_ + j, k);
        if (ggl) hessian_q_rows_[slot] = at(j, k);
      }
    }
  }

  if (band >= 0) {
    const auto width = static_cast<std::size_t>(2 * band + 1);
    bias_q_.assign(static_cast<std::size_t>(nq_) * width, -1);
    bias_v_.assign(bias_q_.size(), -1);
    for (int k = 0; k < nq_; ++k) {
      for (int i = std::max(0, k - band); i <= std::min(nq_ - 1, k + band); ++i) {
        const std::size_t slot = static_cast<std::size_t>(k) * width + static_cast<std::size_t>(i - k + band);
        bias_q_[slot] = at(nq_ + i, k);
        bias_v_[slot] = at(nq_ + i, nq_ + k);
      }
    }
  }
}

long IdaSparseNewton::position(int row, int col) const {
  const auto begin = row_index_.begin() + column_start_[static_cast<std::size_t>(col)];
  const auto end = row_index_.begin() + column_start_[static_cast<std::size_t>(col) + 1];
  const auto found = std::lower_bound(begin, end, static_cast<sunindextype>(row));
  return static_cast<long>(found - row_index_.begin());
}

void IdaSparseNewton::copyPattern(sunindextype* column_start, sunindextype* row_index) const {
  std::copy(column_start_.begin(), column_start_.end(), column_start);
  std::copy(row_index_.begin(), row_index_.end(), row_index);
}

void IdaSparseNewton::assemble(double t, const double* y, const double* y_dot, double c, double* data) {
  std::fill(data, data + nonZeros(), 0.0);
  const Eigen::Map<const Vector> q(y, nq_), v(y + nq_, nq_), lambda(y + 2 * nq_, nc_);
  const Eigen::Map<const Vector> v_dot(y_dot + nq_, nq_);
  const double* mu = ggl_ ? y + 2 * nq_ + nc_ : nullptr;
  // Hᵢ(j, k) = ∂J_ij/∂q_k and ∂γ/∂(q, v) (index-1 only uses ∂γ/∂v).
  curvature_.evaluate(t, q, v, !ggl_);
  const SparseDynamicsJacobian& d = curvature_;
  const Vector& mass = d.massDiagonal();
  const Vector& j0 = d.jacobianValues();
  const IndexVector& j_cols = d.cols();

  // Structural blocks.
  for (int k = 0; k < nq_; ++k) {
    const auto uk = static_cast<std::size_t>(k);
    data[q_identity_[uk]] += c;
    data[v_identity_[uk]] += -1.0;
    data[mass_[uk]] += c * mass[k];
  }
  const double velocity_coefficient = ggl_ ? 1.0 : 2.0 * alpha_ + c;
  for (int p = 0; p < nnz_j_; ++p) {
    const auto up = static_cast<std::size_t>(p);
    data[jt_lambda_[up]] += -j0[p];
    data[constraint_v_[up]] += velocity_coefficient * j0[p];
    if (ggl_) {
      data[jt_mu_[up]] += j0[p];
      data[position_q_[up]] += j0[p];
    } else {
      data[constraint_q_[up]] += beta_ * beta_ * j0[p];
    }
  }
  // ∂γ/∂q and ∂γ/∂v sit where J(i, k) does in the F_c blocks.
  if (!ggl_) {
    for (int p = 0; p < nnz_j_; ++p) {
      data[constraint_q_[static_cast<std::size_t>(p)]] += d.gammaQ()[p];
      data[constraint_v_[static_cast<std::size_t>(p)]] += d.gammaV()[p];
    }
  }

  // ∂h/∂q and ∂h/∂v in F_v's rows (springs, dampers), where the model declares a band.
  const int band = d.biasBandwidth();
  for (int k = 0; k < nq_ && band >= 0; ++k) {
    for (int i = std::max(0, k - band); i <= std::min(nq_ - 1, k + band); ++i) {
      const std::size_t slot = static_cast<std::size_t>(k) * static_cast<std::size_t>(2 * band + 1) +
                               static_cast<std::size_t>(i - k + band);
      data[bias_q_[slot]] += d.biasQ(i, k);
      data[bias_v_[slot]] += d.biasV(i, k);
    }
  }

  // Σ wᵢ Hᵢ blocks and the Hᵢ x rows.
  for (int i = 0; i < nc_; ++i) {
    const int size = d.rowSize(i);
    const double* H = d.hessianValues().data() + d.hessianStart(i);
    for (int a = 0; a < size; ++a) {
      for (int b = 0; b < size; ++b) {
        const auto slot = static_cast<std::size_t>(d.hessianStart(i) + a * size + b);
        data[hessian_v_rows_[slot]] += -lambda[i] * H[a * size + b];
        if (ggl_) data[hessian_q_rows_[slot]] += mu[i] * H[a * size + b];
      }
    }
    // Row i of ∂(J x)/∂q: Σ_a x_{j(a)} Hᵢ(a, b), x = v̇ (+ 2α v) for index-1, v for GGL's φ̇ row.
    for (int b = 0; b < size; ++b) {
      double sum = 0.0;
      for (int a = 0; a < size; ++a) {
        const int j = j_cols[d.rowEntry(i, a)];
        const double x = ggl_ ? v[j] : v_dot[j] + 2.0 * alpha_ * v[j];
        sum += x * H[a * size + b];
      }
      data[constraint_q_[static_cast<std::size_t>(d.rowEntry(i, b))]] += sum;
    }
  }
}

}  // namespace kktdae::detail

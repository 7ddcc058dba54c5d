#include "ida_sparse_newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "kktdae/core/checks.hpp"

namespace kktdae::detail {
namespace {

/// Forward-difference step for coordinate value x: √eps relative, at least √eps.
double differenceStep(double x) {
  return std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(x));
}

}  // namespace

std::string IdaSparseNewton::unsupportedReason(const ConstrainedSystem& system) {
  if (system.jacobianNonZeros() <= 0) return system.name() + " has no sparse Jacobian";
  if (system.massStructure() != MassStructure::ConstantDiagonal) return system.name() + " has no constant diagonal M";
  if (system.biasDependsOnState()) return system.name() + "'s h depends on (q, v) (biasDependsOnState())";
  if (system.nu() > 0) return system.name() + " has inputs (their derivatives are not known)";
  if (system.isTimeDependent()) return system.name() + "'s constraints depend on time";
  return "";
}

IdaSparseNewton::IdaSparseNewton(const ConstrainedSystem& system, bool ggl, const Stabilization& stabilization)
    : system_(system),
      ggl_(ggl),
      alpha_(stabilization.kind == Stabilization::Kind::Baumgarte ? stabilization.alpha : 0.0),
      beta_(stabilization.kind == Stabilization::Kind::Baumgarte ? stabilization.beta : 0.0),
      nq_(system.nq()),
      nc_(system.nc()),
      nnz_j_(system.jacobianNonZeros()) {
  const std::string reason = unsupportedReason(system);
  if (!reason.empty()) throwInvalid("adaptive.linear_solver", "sparse IDA Newton matrix: " + reason);
  j_rows_.resize(nnz_j_);
  j_cols_.resize(nnz_j_);
  system.constraintJacobianPattern(j_rows_, j_cols_);

  // Entries grouped by row.
  row_start_.assign(static_cast<std::size_t>(nc_) + 1, 0);
  for (int p = 0; p < nnz_j_; ++p) ++row_start_[static_cast<std::size_t>(j_rows_[p]) + 1];
  for (int i = 0; i < nc_; ++i) row_start_[static_cast<std::size_t>(i) + 1] += row_start_[static_cast<std::size_t>(i)];
  row_entries_.resize(static_cast<std::size_t>(nnz_j_));
  {
    std::vector<int> next(row_start_.begin(), row_start_.end() - 1);
    for (int p = 0; p < nnz_j_; ++p) row_entries_[static_cast<std::size_t>(next[static_cast<std::size_t>(j_rows_[p])]++)] = p;
  }

  // Greedy coloring: a column takes the smallest color no column sharing a row with it has.
  std::vector<std::vector<int>> rows_of_column(static_cast<std::size_t>(nq_));
  for (int p = 0; p < nnz_j_; ++p) rows_of_column[static_cast<std::size_t>(j_cols_[p])].push_back(j_rows_[p]);
  column_color_.assign(static_cast<std::size_t>(nq_), -1);
  std::vector<int> forbidden_mark;
  for (int k = 0; k < nq_; ++k) {
    std::vector<char> used(static_cast<std::size_t>(colors_) + 1, 0);
    for (int i : rows_of_column[static_cast<std::size_t>(k)]) {
      for (int e = row_start_[static_cast<std::size_t>(i)]; e < row_start_[static_cast<std::size_t>(i) + 1]; ++e) {
        const int other = j_cols_[row_entries_[static_cast<std::size_t>(e)]];
        const int color = column_color_[static_cast<std::size_t>(other)];
        if (other != k && color >= 0) used[static_cast<std::size_t>(color)] = 1;
      }
    }
    int color = 0;
    while (color < colors_ && used[static_cast<std::size_t>(color)]) ++color;
    column_color_[static_cast<std::size_t>(k)] = color;
    colors_ = std::max(colors_, color + 1);
  }
  color_column_of_row_.assign(static_cast<std::size_t>(colors_) * static_cast<std::size_t>(nc_), -1);
  for (int p = 0; p < nnz_j_; ++p) {
    const int color = column_color_[static_cast<std::size_t>(j_cols_[p])];
    color_column_of_row_[static_cast<std::size_t>(color) * static_cast<std::size_t>(nc_) + static_cast<std::size_t>(j_rows_[p])] = j_cols_[p];
  }

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
    const int i = j_rows_[p], k = j_cols_[p];
    entries.emplace_back(lambda0 + i, nq_ + k);  // F_v × λ
    entries.emplace_back(k, lambda0 + i);        // F_c (or F_φ̇) × q
    entries.emplace_back(nq_ + k, lambda0 + i);  // F_c (or F_φ̇) × v
    if (ggl) {
      entries.emplace_back(mu0 + i, k);  // F_q × μ
      entries.emplace_back(k, mu0 + i);  // F_φ × q
    }
  }
  for (int i = 0; i < nc_; ++i) {
    for (int a = row_start_[static_cast<std::size_t>(i)]; a < row_start_[static_cast<std::size_t>(i) + 1]; ++a) {
      for (int b = row_start_[static_cast<std::size_t>(i)]; b < row_start_[static_cast<std::size_t>(i) + 1]; ++b) {
        const int j = j_cols_[row_entries_[static_cast<std::size_t>(a)]], k = j_cols_[row_entries_[static_cast<std::size_t>(b)]];
        entries.emplace_back(k, nq_ + j);     // F_v × q
        if (ggl) entries.emplace_back(k, j);  // F_q × q
      }
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
    const int i = j_rows_[p], k = j_cols_[p];
    const auto up = static_cast<std::size_t>(p);
    jt_lambda_[up] = at(nq_ + k, lambda0 + i);
    constraint_q_[up] = at(lambda0 + i, k);
    constraint_v_[up] = at(lambda0 + i, nq_ + k);
    if (ggl) {
      jt_mu_[up] = at(k, mu0 + i);
      position_q_[up] = at(mu0 + i, k);
    }
  }
  hessian_start_.assign(static_cast<std::size_t>(nc_) + 1, 0);
  for (int i = 0; i < nc_; ++i) {
    const int size = row_start_[static_cast<std::size_t>(i) + 1] - row_start_[static_cast<std::size_t>(i)];
    hessian_start_[static_cast<std::size_t>(i) + 1] = hessian_start_[static_cast<std::size_t>(i)] + size * size;
  }
  hessian_v_rows_.resize(static_cast<std::size_t>(hessian_start_.back()));
  if (ggl) hessian_q_rows_.resize(static_cast<std::size_t>(hessian_start_.back()));
  for (int i = 0; i < nc_; ++i) {
    const int begin = row_start_[static_cast<std::size_t>(i)], size = row_start_[static_cast<std::size_t>(i) + 1] - begin;
    for (int a = 0; a < size; ++a) {
      for (int b = 0; b < size; ++b) {
        const int j = j_cols_[row_entries_[static_cast<std::size_t>(begin + a)]];
        const int k = j_cols_[row_entries_[static_cast<std::size_t>(begin + b)]];
        const auto slot = static_cast<std::size_t>(hessian_start_[static_cast<std::size_t>(i)] + a * size + b);
        hessian_v_rows_[slot] = at(nq_ + j, k);
        if (ggl) hessian_q_rows_[slot] = at(j, k);
      }
    }
  }
  j0_ = Vector::Zero(nnz_j_);
  j1_ = Vector::Zero(nnz_j_);
  gamma0_ = Vector::Zero(nc_);
  gamma1_ = Vector::Zero(nc_);
  q_ = Vector::Zero(nq_);
  v_ = Vector::Zero(nq_);
  hessian_ = Vector::Zero(hessian_start_.back());
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

  // Structural blocks.
  Vector& mass = v_;  // scratch: diag(M) (constant)
  system_.massDiagonal(q, mass);
  for (int k = 0; k < nq_; ++k) {
    const auto uk = static_cast<std::size_t>(k);
    data[q_identity_[uk]] += c;
    data[v_identity_[uk]] += -1.0;
    data[mass_[uk]] += c * mass[k];
  }
  system_.constraintJacobianValues(q, t, j0_);
  const double velocity_coefficient = ggl_ ? 1.0 : 2.0 * alpha_ + c;
  for (int p = 0; p < nnz_j_; ++p) {
    const auto up = static_cast<std::size_t>(p);
    data[jt_lambda_[up]] += -j0_[p];
    data[constraint_v_[up]] += velocity_coefficient * j0_[p];
    if (ggl_) {
      data[jt_mu_[up]] += j0_[p];
      data[position_q_[up]] += j0_[p];
    } else {
      data[constraint_q_[up]] += beta_ * beta_ * j0_[p];
    }
  }

  // Curvature: Hᵢ(j, k) = ∂J_ij/∂q_k and ∂γ/∂(q, v), by colored forward differences.
  system_.constraintBias(q, v, t, gamma0_);
  for (int color = 0; color < colors_; ++color) {
    q_ = q;
    for (int k = 0; k < nq_; ++k) {
      if (column_color_[static_cast<std::size_t>(k)] == color) q_[k] += differenceStep(q[k]);
    }
    system_.constraintJacobianValues(q_, t, j1_);
    system_.constraintBias(q_, v, t, gamma1_);
    const int* column_of_row = &color_column_of_row_[static_cast<std::size_t>(color) * static_cast<std::size_t>(nc_)];
    for (int i = 0; i < nc_; ++i) {
      const int k = column_of_row[i];
      if (k < 0) continue;
      const double h = q_[k] - q[k];
      const int begin = row_start_[static_cast<std::size_t>(i)], size = row_start_[static_cast<std::size_t>(i) + 1] - begin;
      int b = 0;  // k's local index in row i
      while (j_cols_[row_entries_[static_cast<std::size_t>(begin + b)]] != k) ++b;
      for (int a = 0; a < size; ++a) {
        const int p = row_entries_[static_cast<std::size_t>(begin + a)];
        hessian_[hessian_start_[static_cast<std::size_t>(i)] + a * size + b] = (j1_[p] - j0_[p]) / h;
      }
      // ∂γᵢ/∂q_k sits where J(i, k) does in the F_c × q block.
      const int p_k = row_entries_[static_cast<std::size_t>(begin + b)];
      if (!ggl_) data[constraint_q_[static_cast<std::size_t>(p_k)]] += (gamma1_[i] - gamma0_[i]) / h;
    }
    if (!ggl_) {  // ∂γ/∂v along the same colors
      v_ = v;
      for (int k = 0; k < nq_; ++k) {
        if (column_color_[static_cast<std::size_t>(k)] == color) v_[k] += differenceStep(v[k]);
      }
      system_.constraintBias(q, v_, t, gamma1_);
      for (int i = 0; i < nc_; ++i) {
        const int k = column_of_row[i];
        if (k < 0) continue;
        const int begin = row_start_[static_cast<std::size_t>(i)];
        int b = 0;
        while (j_cols_[row_entries_[static_cast<std::size_t>(begin + b)]] != k) ++b;
        const int p_k = row_entries_[static_cast<std::size_t>(begin + b)];
        data[constraint_v_[static_cast<std::size_t>(p_k)]] += (gamma1_[i] - gamma0_[i]) / (v_[k] - v[k]);
      }
    }
  }

  // Σ wᵢ Hᵢ blocks and the Hᵢ x rows.
  for (int i = 0; i < nc_; ++i) {
    const int begin = row_start_[static_cast<std::size_t>(i)], size = row_start_[static_cast<std::size_t>(i) + 1] - begin;
    const double* H = &hessian_[hessian_start_[static_cast<std::size_t>(i)]];
    for (int a = 0; a < size; ++a) {
      for (int b = 0; b < size; ++b) {
        const auto slot = static_cast<std::size_t>(hessian_start_[static_cast<std::size_t>(i)] + a * size + b);
        data[hessian_v_rows_[slot]] += -lambda[i] * H[a * size + b];
        if (ggl_) data[hessian_q_rows_[slot]] += mu[i] * H[a * size + b];
      }
    }
    // Row i of ∂(J x)/∂q: Σ_a x_{j(a)} Hᵢ(a, b), x = v̇ (+ 2α v) for index-1, v for GGL's φ̇ row.
    for (int b = 0; b < size; ++b) {
      double sum = 0.0;
      for (int a = 0; a < size; ++a) {
        const int j = j_cols_[row_entries_[static_cast<std::size_t>(begin + a)]];
        const double x = ggl_ ? v[j] : v_dot[j] + 2.0 * alpha_ * v[j];
        sum += x * H[a * size + b];
      }
      data[constraint_q_[static_cast<std::size_t>(row_entries_[static_cast<std::size_t>(begin + b)])]] += sum;
    }
  }
}

}  // namespace kktdae::detail

#include "kktdae/system/sparse_dynamics_jacobian.hpp"

#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

std::string SparseDynamicsJacobian::unsupportedReason(const ConstrainedSystem& system) {
  if (system.jacobianNonZeros() <= 0) return system.name() + " has no sparse Jacobian";
  if (system.massStructure() != MassStructure::ConstantDiagonal) return system.name() + " has no constant diagonal M";
  if (system.biasDependsOnState() && system.biasJacobianBandwidth() < 0) {
    return system.name() + "'s h depends on (q, v) (biasDependsOnState()) without a declared band "
                           "(biasJacobianBandwidth())";
  }
  if (system.nu() > 0) return system.name() + " has inputs (their derivatives are not known)";
  if (system.isTimeDependent()) return system.name() + "'s constraints depend on time";
  return "";
}

SparseDynamicsJacobian::SparseDynamicsJacobian(const ConstrainedSystem& system, DynamicsJacobianOptions options)
    : system_(system), options_(options), nq_(system.nq()), nc_(system.nc()), nnz_(system.jacobianNonZeros()) {
  options_.validate();
  const std::string reason = unsupportedReason(system);
  if (!reason.empty()) throwInvalid("sparse_dynamics_jacobian", reason);
  rows_.resize(nnz_);
  cols_.resize(nnz_);
  system.constraintJacobianPattern(rows_, cols_);
  const auto uz = [](int i) { return static_cast<std::size_t>(i); };

  // Entries grouped by row.
  row_start_.assign(uz(nc_) + 1, 0);
  for (int p = 0; p < nnz_; ++p) ++row_start_[uz(rows_[p]) + 1];
  for (int i = 0; i < nc_; ++i) row_start_[uz(i) + 1] += row_start_[uz(i)];
  row_entries_.resize(uz(nnz_));
  {
    std::vector<int> next(row_start_.begin(), row_start_.end() - 1);
    for (int p = 0; p < nnz_; ++p) row_entries_[uz(next[uz(rows_[p])]++)] = p;
  }

  // Greedy coloring: a column takes the smallest color no column sharing a row with it has.
  std::vector<std::vector<int>> rows_of_column(uz(nq_));
  for (int p = 0; p < nnz_; ++p) rows_of_column[uz(cols_[p])].push_back(rows_[p]);
  column_color_.assign(uz(nq_), -1);
  for (int k = 0; k < nq_; ++k) {
    std::vector<char> used(uz(colors_) + 1, 0);
    for (int i : rows_of_column[uz(k)]) {
      for (int e = row_start_[uz(i)]; e < row_start_[uz(i) + 1]; ++e) {
        const int other = cols_[row_entries_[uz(e)]];
        const int color = column_color_[uz(other)];
        if (other != k && color >= 0) used[uz(color)] = 1;
      }
    }
    int color = 0;
    while (color < colors_ && used[uz(color)]) ++color;
    column_color_[uz(k)] = color;
    colors_ = std::max(colors_, color + 1);
  }
  color_column_of_row_.assign(uz(colors_) * uz(nc_), -1);
  local_index_.assign(uz(colors_) * uz(nc_), -1);
  for (int i = 0; i < nc_; ++i) {
    for (int a = 0; a < rowSize(i); ++a) {
      const int k = cols_[rowEntry(i, a)];
      const std::size_t slot = uz(column_color_[uz(k)]) * uz(nc_) + uz(i);
      color_column_of_row_[slot] = k;
      local_index_[slot] = a;
    }
  }
  hessian_start_.assign(uz(nc_) + 1, 0);
  for (int i = 0; i < nc_; ++i) hessian_start_[uz(i) + 1] = hessian_start_[uz(i)] + rowSize(i) * rowSize(i);

  j0_ = Vector::Zero(nnz_);
  j1_ = Vector::Zero(nnz_);
  gamma0_ = Vector::Zero(nc_);
  gamma1_ = Vector::Zero(nc_);
  q_ = Vector::Zero(nq_);
  v_ = Vector::Zero(nq_);
  mass_ = Vector::Zero(nq_);
  gamma_q_ = Vector::Zero(nnz_);
  gamma_v_ = Vector::Zero(nnz_);
  hessian_ = Vector::Zero(hessian_start_.back());
  if (system.biasDependsOnState()) {
    bias_bandwidth_ = std::min(system.biasJacobianBandwidth(), nq_ - 1);
    bias_colors_ = std::min(2 * bias_bandwidth_ + 1, nq_);
    h0_ = Vector::Zero(nq_);
    h1_ = Vector::Zero(nq_);
    bias_q_ = Vector::Zero(static_cast<Eigen::Index>(nq_) * (2 * bias_bandwidth_ + 1));
    bias_v_ = Vector::Zero(bias_q_.size());
  }
}

void SparseDynamicsJacobian::biasBand(double t, ConstVectorRef q, ConstVectorRef v, bool in_q, Vector& out) {
  const int b = bias_bandwidth_, width = 2 * b + 1;
  auto step = [&](double x) { return options_.relative_step * std::max(1.0, std::abs(x)); };
  for (int color = 0; color < bias_colors_; ++color) {
    q_ = q;
    v_ = v;
    Vector& moved = in_q ? q_ : v_;
    for (int k = color; k < nq_; k += width) moved[k] += step(moved[k]);
    system_.bias(q_, v_, t, h1_);
    ++model_evaluations_;
    // Columns of one color are 2b + 1 apart: their bands [k − b, k + b] do not overlap.
    for (int k = color; k < nq_; k += width) {
      const double h = in_q ? q_[k] - q[k] : v_[k] - v[k];
      for (int i = std::max(0, k - b); i <= std::min(nq_ - 1, k + b); ++i) out[bandIndex(i, k)] = (h1_[i] - h0_[i]) / h;
    }
  }
}

void SparseDynamicsJacobian::evaluate(double t, ConstVectorRef q, ConstVectorRef v, bool with_velocity) {
  requireSize("sparse_dynamics_jacobian q", q.size(), nq_);
  requireSize("sparse_dynamics_jacobian v", v.size(), nq_);
  system_.massDiagonal(q, mass_);
  system_.constraintJacobianValues(q, t, j0_);
  system_.constraintBias(q, v, t, gamma0_);
  model_evaluations_ += 3;
  if (bias_bandwidth_ >= 0) {
    system_.bias(q, v, t, h0_);
    ++model_evaluations_;
    biasBand(t, q, v, true, bias_q_);
    biasBand(t, q, v, false, bias_v_);
  }
  auto step = [&](double x) { return options_.relative_step * std::max(1.0, std::abs(x)); };
  for (int color = 0; color < colors_; ++color) {
    q_ = q;
    for (int k = 0; k < nq_; ++k) {
      if (column_color_[static_cast<std::size_t>(k)] == color) q_[k] += step(q[k]);
    }
    system_.constraintJacobianValues(q_, t, j1_);
    system_.constraintBias(q_, v, t, gamma1_);
    model_evaluations_ += 2;
    const std::size_t base = static_cast<std::size_t>(color) * static_cast<std::size_t>(nc_);
    for (int i = 0; i < nc_; ++i) {
      const int k = color_column_of_row_[base + static_cast<std::size_t>(i)];
      if (k < 0) continue;
      const int b = local_index_[base + static_cast<std::size_t>(i)];  // k's place in row i
      const double h = q_[k] - q[k];
      const int size = rowSize(i);
      for (int a = 0; a < size; ++a) {
        const int p = rowEntry(i, a);
        hessian_[hessianStart(i) + a * size + b] = (j1_[p] - j0_[p]) / h;
      }
      gamma_q_[rowEntry(i, b)] = (gamma1_[i] - gamma0_[i]) / h;
    }
    if (!with_velocity) continue;
    v_ = v;
    for (int k = 0; k < nq_; ++k) {
      if (column_color_[static_cast<std::size_t>(k)] == color) v_[k] += step(v[k]);
    }
    system_.constraintBias(q, v_, t, gamma1_);
    ++model_evaluations_;
    for (int i = 0; i < nc_; ++i) {
      const int k = color_column_of_row_[base + static_cast<std::size_t>(i)];
      if (k < 0) continue;
      const int b = local_index_[base + static_cast<std::size_t>(i)];
      gamma_v_[rowEntry(i, b)] = (gamma1_[i] - gamma0_[i]) / (v_[k] - v[k]);
    }
  }
}

}  // namespace kktdae

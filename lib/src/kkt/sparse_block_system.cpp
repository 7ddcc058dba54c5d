#include "kktdae/kkt/sparse_block_system.hpp"

#include <klu.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kktdae {

struct SparseBlockSystem::Klu {
  klu_l_common common{};
  klu_l_symbolic* symbolic = nullptr;
  klu_l_numeric* numeric = nullptr;
  ~Klu() {
    if (numeric != nullptr) klu_l_free_numeric(&numeric, &common);
    if (symbolic != nullptr) klu_l_free_symbolic(&symbolic, &common);
  }
};

SparseBlockSystem::SparseBlockSystem(const SparseConstraintSpace& space)
    : nq(space.nq), nc(space.nc), klu_(std::make_unique<Klu>()) {
  const long n = nq + nc;
  const SparseRowMatrix& J = space.J;
  // Column counts: column k < nq holds M(k, k) and J(:, k); column nq + i holds −J(i, :)ᵀ and R(i, i).
  std::vector<long> count(static_cast<std::size_t>(n), 1);
  for (long p = 0; p < J.nonZeros(); ++p) {
    ++count[static_cast<std::size_t>(J.innerIndexPtr()[p])];
  }
  for (int i = 0; i < nc; ++i) count[static_cast<std::size_t>(nq + i)] += J.outerIndexPtr()[i + 1] - J.outerIndexPtr()[i];
  column_start_.assign(static_cast<std::size_t>(n) + 1, 0);
  for (long k = 0; k < n; ++k) column_start_[static_cast<std::size_t>(k) + 1] = column_start_[static_cast<std::size_t>(k)] + count[static_cast<std::size_t>(k)];
  row_index_.assign(static_cast<std::size_t>(column_start_.back()), 0);
  std::vector<long> next(column_start_.begin(), column_start_.end() - 1);
  // Rows increase within each column: the diagonal M(k, k) first (row k < nq), then J's rows.
  mass_position_.resize(static_cast<std::size_t>(nq));
  for (int k = 0; k < nq; ++k) {
    mass_position_[static_cast<std::size_t>(k)] = next[static_cast<std::size_t>(k)];
    row_index_[static_cast<std::size_t>(next[static_cast<std::size_t>(k)]++)] = k;
  }
  jacobian_position_.resize(static_cast<std::size_t>(J.nonZeros()));
  jacobian_transpose_position_.resize(static_cast<std::size_t>(J.nonZeros()));
  for (int i = 0; i < nc; ++i) {  // J's rows in order: rows nq + i increase down each column
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      const auto column = static_cast<std::size_t>(J.innerIndexPtr()[p]);
      jacobian_position_[static_cast<std::size_t>(p)] = next[column];
      row_index_[static_cast<std::size_t>(next[column]++)] = nq + i;
    }
  }
  corner_position_.resize(static_cast<std::size_t>(nc));
  for (int i = 0; i < nc; ++i) {  // column nq + i: −J(i, k) at rows k (increasing), then R(i, i)
    const auto column = static_cast<std::size_t>(nq + i);
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      jacobian_transpose_position_[static_cast<std::size_t>(p)] = next[column];
      row_index_[static_cast<std::size_t>(next[column]++)] = J.innerIndexPtr()[p];
    }
    corner_position_[static_cast<std::size_t>(i)] = next[column];
    row_index_[static_cast<std::size_t>(next[column]++)] = nq + i;
  }
  values_ = Vector::Zero(static_cast<Eigen::Index>(row_index_.size()));
  rhs = Vector::Zero(n);
  solution = Vector::Zero(n);

  klu_l_defaults(&klu_->common);
  klu_->common.halt_if_singular = 1;
  klu_->symbolic = klu_l_analyze(n, column_start_.data(), row_index_.data(), &klu_->common);
  if (klu_->symbolic == nullptr) {
    throw std::runtime_error("KLU symbolic analysis of the block KKT pattern failed (status " +
                             std::to_string(klu_->common.status) + ")");
  }
}

SparseBlockSystem::~SparseBlockSystem() = default;
SparseBlockSystem::SparseBlockSystem(SparseBlockSystem&&) noexcept = default;
SparseBlockSystem& SparseBlockSystem::operator=(SparseBlockSystem&&) noexcept = default;

void SparseBlockSystem::assemble(ConstVectorRef mass_diagonal, const SparseRowMatrix& J, ConstVectorRef corner) {
  for (int k = 0; k < nq; ++k) values_[mass_position_[static_cast<std::size_t>(k)]] = mass_diagonal[k];
  const double* j = J.valuePtr();
  for (std::size_t p = 0; p < jacobian_position_.size(); ++p) {
    values_[jacobian_position_[p]] = j[p];
    values_[jacobian_transpose_position_[p]] = -j[p];
  }
  for (int i = 0; i < nc; ++i) values_[corner_position_[static_cast<std::size_t>(i)]] = corner[i];
}

bool SparseBlockSystem::factorize() {
  Klu& klu = *klu_;
  singular_column_ = -1;
  const long n = nq + nc;
  if (klu.numeric != nullptr) {
    // Same pivot sequence, new values: no allocation. Keep it while the pivots stay healthy
    // (within 1e-3 of the ratio the last pivoting factorization reached).
    if (klu_l_refactor(column_start_.data(), row_index_.data(), values_.data(), klu.symbolic, klu.numeric,
                       &klu.common) == 1 &&
        klu_l_rcond(klu.symbolic, klu.numeric, &klu.common) == 1 && klu.common.rcond >= 1e-3 * pivot_ratio_at_full_) {
      pivot_ratio_ = klu.common.rcond;
      return true;
    }
    klu_l_free_numeric(&klu.numeric, &klu.common);
  }
  klu.numeric = klu_l_factor(column_start_.data(), row_index_.data(), values_.data(), klu.symbolic, &klu.common);
  ++full_factorizations_;
  if (klu.numeric == nullptr || klu.common.status == KLU_SINGULAR) {
    singular_column_ = klu.common.singular_col < n ? klu.common.singular_col : -1;
    if (klu.numeric != nullptr) klu_l_free_numeric(&klu.numeric, &klu.common);
    pivot_ratio_ = 0.0;
    return false;
  }
  klu_l_rcond(klu.symbolic, klu.numeric, &klu.common);
  pivot_ratio_ = pivot_ratio_at_full_ = klu.common.rcond;
  return true;
}

void SparseBlockSystem::solveInPlace(Eigen::Ref<Vector> x) {
  klu_l_solve(klu_->symbolic, klu_->numeric, nq + nc, 1, x.data(), &klu_->common);
}

}  // namespace kktdae

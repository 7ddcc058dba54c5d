#include "kktdae/kkt/sparse_block_system.hpp"

#include <algorithm>
#include <optional>

#include "../linalg/klu_lu.hpp"

namespace kktdae {

/// The shared KLU wrapper (lib/src/linalg/klu_lu.hpp), built once the pattern is known.
struct SparseBlockSystem::Klu {
  std::optional<detail::KluLu> lu;
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

  klu_->lu.emplace(n, column_start_.data(), row_index_.data(), "the block KKT pattern");
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
  return klu_->lu->factorize(column_start_.data(), row_index_.data(), values_.data());
}

// The wrapper keeps the factorization's report; these read it rather than a copy of it.
double SparseBlockSystem::pivotRatio() const { return klu_->lu->pivotRatio(); }
long SparseBlockSystem::singularColumn() const { return klu_->lu->singularColumn(); }
long SparseBlockSystem::fullFactorizations() const { return klu_->lu->fullFactorizations(); }

void SparseBlockSystem::solveInPlace(Eigen::Ref<Vector> x) { klu_->lu->solveInPlace(x.data()); }

}  // namespace kktdae

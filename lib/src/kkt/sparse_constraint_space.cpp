#include "kktdae/kkt/sparse_constraint_space.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "all_finite.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {

SparseConstraintSpace::SparseConstraintSpace(const ConstrainedSystem& system) : nq(system.nq()), nc(system.nc()) {
  const int non_zeros = system.jacobianNonZeros();
  if (non_zeros <= 0) {
    throwInvalid("system", system.name() + " provides no sparse Jacobian (jacobianNonZeros() = " +
                               std::to_string(non_zeros) + "): use the dense path");
  }
  IndexVector rows(non_zeros), cols(non_zeros);
  system.constraintJacobianPattern(rows, cols);
  // Build J's storage with each entry's model index (plus one) as its value: after compression
  // the values say where each model entry went, and a sum (a repeated entry) is detected.
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(static_cast<std::size_t>(non_zeros));
  for (int k = 0; k < non_zeros; ++k) {
    if (rows[k] < 0 || rows[k] >= nc || cols[k] < 0 || cols[k] >= nq) {
      throwInvalid("constraintJacobianPattern", system.name() + ": entry " + std::to_string(k) + " at (" +
                                                    std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                                                    ") is outside J's " + std::to_string(nc) + "×" + std::to_string(nq));
    }
    triplets.emplace_back(rows[k], cols[k], static_cast<double>(k + 1));
  }
  J.resize(nc, nq);
  J.setFromTriplets(triplets.begin(), triplets.end());
  J.makeCompressed();
  if (J.nonZeros() != non_zeros) {
    throwInvalid("constraintJacobianPattern", system.name() + ": " + std::to_string(non_zeros - J.nonZeros()) +
                                                  " entries repeat a position");
  }
  storage_position.assign(static_cast<std::size_t>(non_zeros), 0);
  for (int p = 0; p < non_zeros; ++p) storage_position[static_cast<std::size_t>(J.valuePtr()[p]) - 1] = p;
  model_values = Vector::Zero(non_zeros);

  // A = J W Jᵀ: every pair of entries sharing a column k contributes J(i,k) w_k J(j,k) to A(i,j).
  std::vector<std::vector<std::pair<int, int>>> by_column(static_cast<std::size_t>(nq));  // (row, position)
  for (int i = 0; i < nc; ++i) {
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      by_column[static_cast<std::size_t>(J.innerIndexPtr()[p])].emplace_back(i, p);
    }
  }
  std::vector<std::pair<int, int>> entries;  // (row ≤ col) of A
  std::vector<Term> terms;                   // target = index into `entries` for now
  for (int i = 0; i < nc; ++i) entries.emplace_back(i, i);  // every diagonal, even of a zero row
  std::vector<std::pair<std::pair<int, int>, int>> raw;    // ((row, col), term)
  for (int k = 0; k < nq; ++k) {
    const auto& column = by_column[static_cast<std::size_t>(k)];
    for (std::size_t a = 0; a < column.size(); ++a) {
      for (std::size_t b = a; b < column.size(); ++b) {
        const int row_a = column[a].first, row_b = column[b].first;
        raw.push_back({{std::min(row_a, row_b), std::max(row_a, row_b)}, static_cast<int>(terms.size())});
        terms.push_back({-1, column[a].second, column[b].second, k});
      }
    }
  }
  std::sort(raw.begin(), raw.end());
  for (std::size_t r = 0; r < raw.size(); ++r) {
    const auto& key = raw[r].first;
    int entry;
    if (key.first == key.second) {
      entry = key.first;  // the diagonal entries come first, in row order
    } else if (r > 0 && raw[r - 1].first == key) {
      entry = terms[static_cast<std::size_t>(raw[r - 1].second)].target;
    } else {
      entry = static_cast<int>(entries.size());
      entries.push_back(key);
    }
    terms[static_cast<std::size_t>(raw[r].second)].target = entry;
  }
  const std::vector<int> position = ldlt.analyze(nc, entries);
  for (Term& term : terms) term.target = position[static_cast<std::size_t>(term.target)];
  diagonal_position_.resize(static_cast<std::size_t>(nc));
  for (int i = 0; i < nc; ++i) diagonal_position_[static_cast<std::size_t>(i)] = position[static_cast<std::size_t>(i)];
  // Writing in target order keeps the accumulation's memory access sequential.
  std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.target < y.target; });
  terms_ = std::move(terms);
}

bool SparseConstraintSpace::evaluateJacobian(const ConstrainedSystem& system, ConstVectorRef q, double t) {
  system.constraintJacobianValues(q, t, model_values);
  double* storage = J.valuePtr();
  for (std::size_t k = 0; k < storage_position.size(); ++k) storage[storage_position[k]] = model_values[static_cast<Eigen::Index>(k)];
  return detail::allFinite(model_values);
}

void SparseConstraintSpace::assemble(ConstVectorRef weights, VectorRef diagonal) {
  Vector& values = ldlt.values();
  values.setZero();
  const double* j = J.valuePtr();
  for (const Term& term : terms_) values[term.target] += j[term.left] * weights[term.column] * j[term.right];
  for (int i = 0; i < nc; ++i) diagonal[i] = values[diagonal_position_[static_cast<std::size_t>(i)]];
}

void SparseConstraintSpace::addToDiagonal(ConstVectorRef d) {
  for (int i = 0; i < nc; ++i) ldlt.values()[diagonal_position_[static_cast<std::size_t>(i)]] += d[i];
}

void SparseConstraintSpace::addToDiagonal(double value) {
  for (int i = 0; i < nc; ++i) ldlt.values()[diagonal_position_[static_cast<std::size_t>(i)]] += value;
}

}  // namespace kktdae

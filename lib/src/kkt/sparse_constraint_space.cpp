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
  in_place_ = true;
  for (int k = 0; k < non_zeros; ++k) in_place_ = in_place_ && storage_position[static_cast<std::size_t>(k)] == k;
  model_values = Vector::Zero(in_place_ ? 0 : non_zeros);

  // J by columns, rows ascending (the row-major storage visited row by row).
  column_start_.assign(static_cast<std::size_t>(nq) + 1, 0);
  for (int p = 0; p < non_zeros; ++p) ++column_start_[static_cast<std::size_t>(J.innerIndexPtr()[p]) + 1];
  for (int c = 0; c < nq; ++c) column_start_[static_cast<std::size_t>(c) + 1] += column_start_[static_cast<std::size_t>(c)];
  column_entries_.resize(static_cast<std::size_t>(non_zeros));
  {
    std::vector<int> fill(column_start_.begin(), column_start_.end() - 1);
    for (int i = 0; i < nc; ++i) {
      for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
        column_entries_[static_cast<std::size_t>(fill[static_cast<std::size_t>(J.innerIndexPtr()[p])]++)] = {p, i};
      }
    }
  }

  // A = J W Jᵀ: every pair of entries sharing a column k contributes J(i,k) w_k J(j,k) to A(i,j).
  // Above the diagonal, A's entries of row i come from the rows j > i that share a column with
  // it; they are collected row by row, each with its pairs in column order.
  std::vector<std::pair<int, int>> entries;  // (row ≤ col) of A
  for (int i = 0; i < nc; ++i) entries.emplace_back(i, i);  // every diagonal, even of a zero row
  row_entry_start_.assign(static_cast<std::size_t>(nc) + 1, 0);
  pair_start_.assign(1, 0);
  std::vector<int> entry_index;  // into `entries`, per off-diagonal entry
  std::vector<std::pair<int, Pair>> row_pairs;  // (j, pair) of the current row i
  for (int i = 0; i < nc; ++i) {
    row_pairs.clear();
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      const int k = J.innerIndexPtr()[p];
      for (int e = column_start_[static_cast<std::size_t>(k)]; e < column_start_[static_cast<std::size_t>(k) + 1]; ++e) {
        const ColumnEntry& other = column_entries_[static_cast<std::size_t>(e)];
        if (other.row > i) row_pairs.push_back({other.row, {p, other.position}});
      }
    }
    std::stable_sort(row_pairs.begin(), row_pairs.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });  // columns stay ascending
    for (std::size_t r = 0; r < row_pairs.size(); ++r) {
      if (r == 0 || row_pairs[r].first != row_pairs[r - 1].first) {
        if (r > 0) pair_start_.push_back(static_cast<int>(pairs_.size()));
        entry_index.push_back(static_cast<int>(entries.size()));
        entries.emplace_back(i, row_pairs[r].first);
      }
      pairs_.push_back(row_pairs[r].second);
    }
    if (!row_pairs.empty()) pair_start_.push_back(static_cast<int>(pairs_.size()));
    row_entry_start_[static_cast<std::size_t>(i) + 1] = static_cast<int>(entry_index.size());
  }
  const std::vector<int> position = ldlt.analyze(nc, entries);
  entry_target_.resize(entry_index.size());
  for (std::size_t e = 0; e < entry_index.size(); ++e) {
    entry_target_[e] = position[static_cast<std::size_t>(entry_index[e])];
  }
  diagonal_position_.resize(static_cast<std::size_t>(nc));
  for (int i = 0; i < nc; ++i) diagonal_position_[static_cast<std::size_t>(i)] = position[static_cast<std::size_t>(i)];
}

bool SparseConstraintSpace::evaluateJacobian(const ConstrainedSystem& system, ConstVectorRef q, double t) {
  double* storage = J.valuePtr();
  if (in_place_) {
    Eigen::Map<Vector> values(storage, J.nonZeros());
    system.constraintJacobianValues(q, t, values);
    return detail::allFinite(values);
  }
  system.constraintJacobianValues(q, t, model_values);
  for (std::size_t k = 0; k < storage_position.size(); ++k) storage[storage_position[k]] = model_values[static_cast<Eigen::Index>(k)];
  return detail::allFinite(model_values);
}

void SparseConstraintSpace::assembleRows(ConstVectorRef weights, const double* force, const double* target,
                                         VectorRef diagonal, double* rhs) {
  // Raw pointers held in locals: every loop below then reads only the arrays it walks.
  double* values = ldlt.values().data();
  double* a_diagonal = diagonal.data();
  const double* j = J.valuePtr();
  const int* column = J.innerIndexPtr();
  const int* row_start = J.outerIndexPtr();
  const double* w = weights.data();
  const int* diagonal_slot = diagonal_position_.data();
  const int* entry_start = row_entry_start_.data();
  const int* entry_target = entry_target_.data();
  const int* pair_start = pair_start_.data();
  const Pair* pairs = pairs_.data();
  const bool with_rhs = force != nullptr;
  for (int i = 0; i < nc; ++i) {
    // Row i of J once: A(i, i) and (J W f)_i, products in the order J·w·J and J·(w·f).
    double a_ii = 0.0, jwf = 0.0;
    const int end = row_start[i + 1];
    if (with_rhs) {
      for (int p = row_start[i]; p < end; ++p) {
        const int k = column[p];
        a_ii += j[p] * w[k] * j[p];
        jwf += j[p] * (w[k] * force[k]);
      }
      rhs[i] = target[i] - jwf;
    } else {
      for (int p = row_start[i]; p < end; ++p) a_ii += j[p] * w[column[p]] * j[p];
    }
    values[diagonal_slot[i]] = a_ii;
    a_diagonal[i] = a_ii;
    // A(i, j > i): each written once, so nothing needs zeroing first.
    for (int e = entry_start[i]; e < entry_start[i + 1]; ++e) {
      double a_ij = 0.0;
      for (int r = pair_start[e]; r < pair_start[e + 1]; ++r) a_ij += j[pairs[r].left] * w[column[pairs[r].left]] * j[pairs[r].right];
      values[entry_target[e]] = a_ij;
    }
  }
}

void SparseConstraintSpace::assemble(ConstVectorRef weights, VectorRef diagonal) {
  assembleRows(weights, nullptr, nullptr, diagonal, nullptr);
}

void SparseConstraintSpace::assembleSchur(ConstVectorRef weights, ConstVectorRef force, ConstVectorRef target,
                                          VectorRef diagonal, VectorRef rhs) {
  assembleRows(weights, force.data(), target.data(), diagonal, rhs.data());
}

void SparseConstraintSpace::accelerationsFromMultipliers(ConstVectorRef lambda, ConstVectorRef force,
                                                         ConstVectorRef mass_diagonal, VectorRef qdd) const {
  const double* j = J.valuePtr();
  const double* l = lambda.data();
  const double* f = force.data();
  const double* m = mass_diagonal.data();
  double* out = qdd.data();
  const int* start = column_start_.data();
  const ColumnEntry* entries = column_entries_.data();
  for (int c = 0; c < nq; ++c) {
    // The sum of Eigen's Jᵀλ scatter into a zeroed vector, in the same order (rows ascending).
    double sum = 0.0;
    for (int e = start[c]; e < start[c + 1]; ++e) sum += j[entries[e].position] * l[entries[e].row];
    out[c] = (sum + f[c]) / m[c];
  }
}

void SparseConstraintSpace::addToDiagonal(ConstVectorRef d) {
  for (int i = 0; i < nc; ++i) ldlt.values()[diagonal_position_[static_cast<std::size_t>(i)]] += d[i];
}

void SparseConstraintSpace::addToDiagonal(double value) {
  for (int i = 0; i < nc; ++i) ldlt.values()[diagonal_position_[static_cast<std::size_t>(i)]] += value;
}

}  // namespace kktdae

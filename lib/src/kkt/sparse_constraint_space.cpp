#include "kktdae/kkt/sparse_constraint_space.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "all_finite.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

/// f(0), f(1), …, f(count − 1) in order. kWidth > 0: every run of the pattern has that count
/// (SparseConstraintSpace::run_width_), fixed at compile time. Otherwise written out for the
/// short runs of multibody patterns (a point's x, y, z): a counted loop over two or three entries
/// costs more in its set-up (vectorization checks, remainder) than the entries themselves.
template <int kWidth, class F>
inline void forEachInRun(int count, F&& f) {
  if constexpr (kWidth > 0) {
    static_cast<void>(count);
    for (int e = 0; e < kWidth; ++e) f(e);
  } else {
    switch (count) {
      case 1: f(0); return;
      case 2: f(0); f(1); return;
      case 3: f(0); f(1); f(2); return;
      case 4: f(0); f(1); f(2); f(3); return;
      default:
        for (int e = 0; e < count; ++e) f(e);
    }
  }
}

}  // namespace

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

  // J by columns, rows ascending (the row-major storage visited row by row): analysis only.
  struct ColumnEntry {
    int position, row;
  };
  std::vector<int> column_start(static_cast<std::size_t>(nq) + 1, 0);
  for (int p = 0; p < non_zeros; ++p) ++column_start[static_cast<std::size_t>(J.innerIndexPtr()[p]) + 1];
  for (int c = 0; c < nq; ++c) column_start[static_cast<std::size_t>(c) + 1] += column_start[static_cast<std::size_t>(c)];
  std::vector<ColumnEntry> column_entries(static_cast<std::size_t>(non_zeros));
  {
    std::vector<int> fill(column_start.begin(), column_start.end() - 1);
    for (int i = 0; i < nc; ++i) {
      for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
        column_entries[static_cast<std::size_t>(fill[static_cast<std::size_t>(J.innerIndexPtr()[p])]++)] = {p, i};
      }
    }
  }
  for (int c = 0; c < nq; ++c) {
    if (column_start[static_cast<std::size_t>(c)] == column_start[static_cast<std::size_t>(c) + 1]) empty_columns_.push_back(c);
  }

  // Row runs: an entry joins the run before it when it follows it in storage, in columns and in
  // role (first / last of its column's rows).
  row_run_start_.assign(static_cast<std::size_t>(nc) + 1, 0);
  for (int i = 0; i < nc; ++i) {
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      const int c = J.innerIndexPtr()[p];
      const bool first = column_entries[static_cast<std::size_t>(column_start[static_cast<std::size_t>(c)])].position == p;
      const bool last = column_entries[static_cast<std::size_t>(column_start[static_cast<std::size_t>(c) + 1]) - 1].position == p;
      const Role role = first ? (last ? Role::Only : Role::First) : (last ? Role::Last : Role::Middle);
      if (p > J.outerIndexPtr()[i]) {
        RowRun& run = row_runs_.back();
        if (run.role == role && run.position + run.count == p && run.column + run.count == c) {
          ++run.count;
          continue;
        }
      }
      row_runs_.push_back({p, c, 1, role});
    }
    row_run_start_[static_cast<std::size_t>(i) + 1] = static_cast<int>(row_runs_.size());
  }

  // A = J W Jᵀ: every pair of entries sharing a column k contributes J(i,k) w_k J(j,k) to A(i,j).
  // Above the diagonal, A's entries of row i come from the rows j > i that share a column with
  // it; they are collected row by row, each with its pairs in column order, then merged into
  // runs where left position, right position and column all advance by one.
  struct Pair {
    int left, right, column;
  };
  std::vector<std::pair<int, int>> entries;  // (row ≤ col) of A
  for (int i = 0; i < nc; ++i) entries.emplace_back(i, i);  // every diagonal, even of a zero row
  row_entry_start_.assign(static_cast<std::size_t>(nc) + 1, 0);
  pair_start_.assign(1, 0);
  std::vector<int> entry_index;  // into `entries`, per off-diagonal entry
  std::vector<std::pair<int, Pair>> row_pairs;  // (j, pair) of the current row i
  auto add_pair = [&](const Pair& pair, bool new_entry) {
    if (!new_entry) {
      PairRun& run = pair_runs_.back();
      if (run.left + run.count == pair.left && run.right + run.count == pair.right && run.column + run.count == pair.column) {
        ++run.count;
        return;
      }
    }
    pair_runs_.push_back({pair.left, pair.right, pair.column, 1});
  };
  for (int i = 0; i < nc; ++i) {
    row_pairs.clear();
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      const int k = J.innerIndexPtr()[p];
      for (int e = column_start[static_cast<std::size_t>(k)]; e < column_start[static_cast<std::size_t>(k) + 1]; ++e) {
        const ColumnEntry& other = column_entries[static_cast<std::size_t>(e)];
        if (other.row > i) row_pairs.push_back({other.row, {p, other.position, k}});
      }
    }
    std::stable_sort(row_pairs.begin(), row_pairs.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });  // columns stay ascending
    for (std::size_t r = 0; r < row_pairs.size(); ++r) {
      const bool new_entry = r == 0 || row_pairs[r].first != row_pairs[r - 1].first;
      if (new_entry) {
        if (r > 0) pair_start_.push_back(static_cast<int>(pair_runs_.size()));
        entry_index.push_back(static_cast<int>(entries.size()));
        entries.emplace_back(i, row_pairs[r].first);
      }
      add_pair(row_pairs[r].second, new_entry);
    }
    if (!row_pairs.empty()) pair_start_.push_back(static_cast<int>(pair_runs_.size()));
    row_entry_start_[static_cast<std::size_t>(i) + 1] = static_cast<int>(entry_index.size());
  }
  const std::vector<int> position = ldlt.analyze(nc, entries);
  entry_target_.resize(entry_index.size());
  for (std::size_t e = 0; e < entry_index.size(); ++e) {
    entry_target_[e] = position[static_cast<std::size_t>(entry_index[e])];
  }
  diagonal_position_.resize(static_cast<std::size_t>(nc));
  for (int i = 0; i < nc; ++i) diagonal_position_[static_cast<std::size_t>(i)] = position[static_cast<std::size_t>(i)];
  // One width for every run (a particle model's rows are blocks of x, y, z): the per-step loops
  // then take it as a compile-time constant.
  const int width = !row_runs_.empty() ? row_runs_.front().count : 0;
  bool uniform = width >= 1 && width <= 3;
  for (const RowRun& run : row_runs_) uniform = uniform && run.count == width;
  for (const PairRun& run : pair_runs_) uniform = uniform && run.count == width;
  run_width_ = uniform ? width : 0;
}

bool SparseConstraintSpace::evaluateJacobian(const ConstrainedSystem& system, ConstVectorRef q, double t) {
  if (in_place_) {
    Eigen::Map<Vector> values(J.valuePtr(), J.nonZeros());
    system.constraintJacobianValues(q, t, values);
    return detail::allFinite(values);
  }
  system.constraintJacobianValues(q, t, model_values);
  storeJacobianValues();
  return detail::allFinite(model_values);
}

Eigen::Map<Vector> SparseConstraintSpace::jacobianValueTarget() {
  return in_place_ ? Eigen::Map<Vector>(J.valuePtr(), J.nonZeros())
                   : Eigen::Map<Vector>(model_values.data(), model_values.size());
}

void SparseConstraintSpace::storeJacobianValues() {
  if (in_place_) return;
  double* storage = J.valuePtr();
  for (std::size_t k = 0; k < storage_position.size(); ++k) storage[storage_position[k]] = model_values[static_cast<Eigen::Index>(k)];
}

template <int kWidth>
void SparseConstraintSpace::assembleRowsAs(ConstVectorRef weights, const double* force, const double* target,
                                           VectorRef diagonal, double* rhs) {
  // Raw pointers held in locals: every loop below then reads only the arrays it walks. Inside a
  // run storage positions and columns advance together, so no index is loaded per entry; the
  // sums and products are those of an entry-by-entry pass in storage order (the same bits).
  double* values = ldlt.values().data();
  double* a_diagonal = diagonal.data();
  const double* j = J.valuePtr();
  const double* w = weights.data();
  const int* diagonal_slot = diagonal_position_.data();
  const int* run_start = row_run_start_.data();
  const RowRun* runs = row_runs_.data();
  const int* entry_start = row_entry_start_.data();
  const int* entry_target = entry_target_.data();
  const int* pair_start = pair_start_.data();
  const PairRun* pair_runs = pair_runs_.data();
  const bool with_rhs = force != nullptr;
  for (int i = 0; i < nc; ++i) {
    // Row i of J once: A(i, i) and (J W f)_i, products in the order J·w·J and J·(w·f).
    double a_ii = 0.0, jwf = 0.0;
    if (with_rhs) {
      for (int r = run_start[i]; r < run_start[i + 1]; ++r) {
        const double* jr = j + runs[r].position;
        const double* wr = w + runs[r].column;
        const double* fr = force + runs[r].column;
        forEachInRun<kWidth>(runs[r].count, [&](int e) {
          a_ii += jr[e] * wr[e] * jr[e];
          jwf += jr[e] * (wr[e] * fr[e]);
        });
      }
      rhs[i] = target[i] - jwf;
    } else {
      for (int r = run_start[i]; r < run_start[i + 1]; ++r) {
        const double* jr = j + runs[r].position;
        const double* wr = w + runs[r].column;
        forEachInRun<kWidth>(runs[r].count, [&](int e) { a_ii += jr[e] * wr[e] * jr[e]; });
      }
    }
    values[diagonal_slot[i]] = a_ii;
    a_diagonal[i] = a_ii;
    // A(i, j > i): each written once, so nothing needs zeroing first.
    for (int e = entry_start[i]; e < entry_start[i + 1]; ++e) {
      double a_ij = 0.0;
      for (int r = pair_start[e]; r < pair_start[e + 1]; ++r) {
        const double* left = j + pair_runs[r].left;
        const double* right = j + pair_runs[r].right;
        const double* wr = w + pair_runs[r].column;
        forEachInRun<kWidth>(pair_runs[r].count, [&](int k) { a_ij += left[k] * wr[k] * right[k]; });
      }
      values[entry_target[e]] = a_ij;
    }
  }
}

void SparseConstraintSpace::assembleRows(ConstVectorRef weights, const double* force, const double* target,
                                         VectorRef diagonal, double* rhs) {
  switch (run_width_) {
    case 3: assembleRowsAs<3>(weights, force, target, diagonal, rhs); return;
    case 1: assembleRowsAs<1>(weights, force, target, diagonal, rhs); return;
    case 2: assembleRowsAs<2>(weights, force, target, diagonal, rhs); return;
    default: assembleRowsAs<0>(weights, force, target, diagonal, rhs); return;
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
  switch (run_width_) {
    case 3: scatterAs<3>(lambda.data(), force.data(), mass_diagonal.data(), qdd.data()); return;
    case 1: scatterAs<1>(lambda.data(), force.data(), mass_diagonal.data(), qdd.data()); return;
    case 2: scatterAs<2>(lambda.data(), force.data(), mass_diagonal.data(), qdd.data()); return;
    default: scatterAs<0>(lambda.data(), force.data(), mass_diagonal.data(), qdd.data()); return;
  }
}

void SparseConstraintSpace::rowProducts(ConstVectorRef x, ConstVectorRef offset, VectorRef out) const {
  switch (run_width_) {
    case 3: rowProductsAs<3>(x.data(), offset.data(), out.data()); return;
    case 1: rowProductsAs<1>(x.data(), offset.data(), out.data()); return;
    case 2: rowProductsAs<2>(x.data(), offset.data(), out.data()); return;
    default: rowProductsAs<0>(x.data(), offset.data(), out.data()); return;
  }
}

template <int kWidth>
void SparseConstraintSpace::rowProductsAs(const double* x, const double* offset, double* out) const {
  // Each row from zero over its entries in storage order, then + offset: the sums of Eigen's
  // sparse × dense product into a zeroed result with the offset added afterwards.
  const double* j = J.valuePtr();
  const int* run_start = row_run_start_.data();
  const RowRun* runs = row_runs_.data();
  for (int i = 0; i < nc; ++i) {
    double sum = 0.0;
    for (int r = run_start[i]; r < run_start[i + 1]; ++r) {
      const double* jr = j + runs[r].position;
      const double* xr = x + runs[r].column;
      forEachInRun<kWidth>(runs[r].count, [&](int e) { sum += jr[e] * xr[e]; });
    }
    out[i] = (0.0 + sum) + offset[i];
  }
}

template <int kWidth>
void SparseConstraintSpace::scatterAs(const double* l, const double* f, const double* m, double* out) const {
  // A scatter by rows: q̈_c is started by the first row of column c, accumulated by the rows in
  // between and finished (+ f, / m) by the last, so each q̈_c is the column sum from zero over
  // rows ascending, (Σ J(i, c) λ_i + f_c) / m_c, the bits of Eigen's Jᵀλ into a zeroed vector.
  // qdd is written, never zeroed first; J is read in storage order, λ once per row.
  const double* j = J.valuePtr();
  const int* run_start = row_run_start_.data();
  const RowRun* runs = row_runs_.data();
  for (int i = 0; i < nc; ++i) {
    const double li = l[i];
    for (int r = run_start[i]; r < run_start[i + 1]; ++r) {
      const double* jr = j + runs[r].position;
      double* o = out + runs[r].column;
      const double* fr = f + runs[r].column;
      const double* mr = m + runs[r].column;
      const int count = runs[r].count;
      switch (runs[r].role) {
        case Role::First:
          forEachInRun<kWidth>(count, [&](int e) { o[e] = 0.0 + jr[e] * li; });
          break;
        case Role::Middle:
          forEachInRun<kWidth>(count, [&](int e) { o[e] += jr[e] * li; });
          break;
        case Role::Last:
          forEachInRun<kWidth>(count, [&](int e) { o[e] = ((o[e] + jr[e] * li) + fr[e]) / mr[e]; });
          break;
        case Role::Only:
          forEachInRun<kWidth>(count, [&](int e) { o[e] = ((0.0 + jr[e] * li) + fr[e]) / mr[e]; });
          break;
      }
    }
  }
  for (const int c : empty_columns_) out[c] = (0.0 + f[c]) / m[c];
}

void SparseConstraintSpace::addToDiagonal(ConstVectorRef d) {
  for (int i = 0; i < nc; ++i) ldlt.values()[diagonal_position_[static_cast<std::size_t>(i)]] += d[i];
}

void SparseConstraintSpace::addToDiagonal(double value) {
  for (int i = 0; i < nc; ++i) ldlt.values()[diagonal_position_[static_cast<std::size_t>(i)]] += value;
}

}  // namespace kktdae

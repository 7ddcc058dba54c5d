#include "kktdae/linalg/sparse_ldlt.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>

#include "band_ldlt.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {

namespace {

/// max |i − j| over the entries once each row is renumbered by `inverse` (original → new).
int bandwidthUnder(const std::vector<std::pair<int, int>>& entries, const std::vector<int>& inverse) {
  int width = 0;
  for (const auto& [row, col] : entries) {
    width = std::max(width, std::abs(inverse[static_cast<std::size_t>(row)] - inverse[static_cast<std::size_t>(col)]));
  }
  return width;
}

}  // namespace

std::vector<int> SparseLdlt::analyze(int n, const std::vector<std::pair<int, int>>& upper_entries, bool reorder,
                                     int max_bandwidth) {
  if (n < 0) throwInvalid("n", "must be ≥ 0, got " + std::to_string(n));
  if (max_bandwidth < -1) throwInvalid("max_bandwidth", "must be ≥ −1, got " + std::to_string(max_bandwidth));
  n_ = n;
  bandwidth_ = -1;
  std::vector<char> has_diagonal(static_cast<std::size_t>(n), 0);
  for (const auto& [row, col] : upper_entries) {
    if (row < 0 || col < 0 || row >= n || col >= n || row > col) {
      throwInvalid("upper_entries", "entry (" + std::to_string(row) + ", " + std::to_string(col) +
                                        ") is outside the upper triangle of a " + std::to_string(n) + "-square matrix");
    }
    if (row == col) has_diagonal[static_cast<std::size_t>(row)] = 1;
  }
  for (int k = 0; k < n; ++k) {
    if (!has_diagonal[static_cast<std::size_t>(k)]) {
      throwInvalid("upper_entries", "diagonal entry (" + std::to_string(k) + ", " + std::to_string(k) + ") is missing");
    }
  }

  // Ordering: the natural one when it is already a narrow band (no fill outside the band, and
  // the band path needs no permutation), else approximate minimum degree on the symmetric pattern.
  permutation_.resize(static_cast<std::size_t>(n));
  std::iota(permutation_.begin(), permutation_.end(), 0);
  const int natural_bandwidth = bandwidthUnder(upper_entries, permutation_);
  const bool natural_band = max_bandwidth >= 0 && natural_bandwidth <= max_bandwidth;
  if (reorder && n > 0 && !natural_band) {
    Eigen::SparseMatrix<double, Eigen::ColMajor, int> pattern(n, n);
    std::vector<Eigen::Triplet<double, int>> triplets;
    triplets.reserve(2 * upper_entries.size());
    for (const auto& [row, col] : upper_entries) {
      triplets.emplace_back(row, col, 1.0);
      if (row != col) triplets.emplace_back(col, row, 1.0);
    }
    pattern.setFromTriplets(triplets.begin(), triplets.end());
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> amd;
    Eigen::AMDOrdering<int> ordering;
    ordering(pattern, amd);
    // Eigen's permutation maps original → new; keep new → original.
    for (int original = 0; original < n; ++original) permutation_[static_cast<std::size_t>(amd.indices()[original])] = original;
  }
  std::vector<int> inverse(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) inverse[static_cast<std::size_t>(permutation_[static_cast<std::size_t>(k)])] = k;
  natural_order_ = true;
  for (int k = 0; k < n; ++k) natural_order_ = natural_order_ && permutation_[static_cast<std::size_t>(k)] == k;
  pivot_ratio_ = 0.0;
  breakdown_index_ = -1;
  if (max_bandwidth >= 0) {
    const int width = natural_order_ ? natural_bandwidth : bandwidthUnder(upper_entries, inverse);
    if (width <= max_bandwidth) {
      bandwidth_ = width;
      return analyzeBand(upper_entries, inverse);
    }
  }

  // The permuted upper triangle, compressed by column, rows sorted within a column.
  struct Entry {
    int row, col, input;
  };
  std::vector<Entry> entries;
  entries.reserve(upper_entries.size());
  for (std::size_t e = 0; e < upper_entries.size(); ++e) {
    const int a = inverse[static_cast<std::size_t>(upper_entries[e].first)];
    const int b = inverse[static_cast<std::size_t>(upper_entries[e].second)];
    entries.push_back({std::min(a, b), std::max(a, b), static_cast<int>(e)});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& x, const Entry& y) { return x.col != y.col ? x.col < y.col : x.row < y.row; });
  std::vector<int> position(upper_entries.size());
  column_start_.assign(static_cast<std::size_t>(n) + 1, 0);
  row_index_.resize(entries.size());
  for (std::size_t p = 0; p < entries.size(); ++p) {
    if (p > 0 && entries[p].row == entries[p - 1].row && entries[p].col == entries[p - 1].col) {
      throwInvalid("upper_entries", "entry (" + std::to_string(upper_entries[static_cast<std::size_t>(entries[p].input)].first) +
                                        ", " + std::to_string(upper_entries[static_cast<std::size_t>(entries[p].input)].second) +
                                        ") appears twice");
    }
    row_index_[p] = entries[p].row;
    position[static_cast<std::size_t>(entries[p].input)] = static_cast<int>(p);
    ++column_start_[static_cast<std::size_t>(entries[p].col) + 1];
  }
  for (int k = 0; k < n; ++k) column_start_[static_cast<std::size_t>(k) + 1] += column_start_[static_cast<std::size_t>(k)];
  values_ = Vector::Zero(static_cast<Eigen::Index>(entries.size()));

  // Symbolic factorization: the elimination tree and the count of each column of L. Row k of
  // L is reached by walking up the tree from every i < k with A(i, k) ≠ 0.
  parent_.assign(static_cast<std::size_t>(n), -1);
  flag_.assign(static_cast<std::size_t>(n), -1);
  std::vector<int> counts(static_cast<std::size_t>(n), 0);
  for (int k = 0; k < n; ++k) {
    flag_[static_cast<std::size_t>(k)] = k;
    for (int p = column_start_[static_cast<std::size_t>(k)]; p < column_start_[static_cast<std::size_t>(k) + 1]; ++p) {
      for (int i = row_index_[static_cast<std::size_t>(p)]; i < k && flag_[static_cast<std::size_t>(i)] != k;
           i = parent_[static_cast<std::size_t>(i)]) {
        if (parent_[static_cast<std::size_t>(i)] == -1) parent_[static_cast<std::size_t>(i)] = k;
        ++counts[static_cast<std::size_t>(i)];
        flag_[static_cast<std::size_t>(i)] = k;
      }
    }
  }
  l_column_start_.assign(static_cast<std::size_t>(n) + 1, 0);
  for (int k = 0; k < n; ++k) {
    l_column_start_[static_cast<std::size_t>(k) + 1] = l_column_start_[static_cast<std::size_t>(k)] + counts[static_cast<std::size_t>(k)];
  }
  l_rows_.assign(static_cast<std::size_t>(l_column_start_.back()), 0);
  l_values_ = Vector::Zero(l_column_start_.back());
  d_ = Vector::Zero(n);
  l_column_fill_.assign(static_cast<std::size_t>(n), 0);
  reach_.assign(static_cast<std::size_t>(n), 0);
  y_ = Vector::Zero(n);
  permuted_ = Vector::Zero(n);
  return position;
}

std::vector<int> SparseLdlt::analyzeBand(const std::vector<std::pair<int, int>>& upper_entries,
                                         const std::vector<int>& inverse) {
  const int b = bandwidth_;
  const auto slots = static_cast<std::size_t>(n_) * static_cast<std::size_t>(b + 1);
  // Row k of the lower band (= column k of the upper one) at k(b+1): A(k, k−b+t) in slot t.
  std::vector<int> position(upper_entries.size());
  std::vector<char> used(slots, 0);
  for (std::size_t e = 0; e < upper_entries.size(); ++e) {
    const int a = inverse[static_cast<std::size_t>(upper_entries[e].first)];
    const int c = inverse[static_cast<std::size_t>(upper_entries[e].second)];
    const int row = std::max(a, c), col = std::min(a, c);
    const auto slot = static_cast<std::size_t>(row) * static_cast<std::size_t>(b + 1) + static_cast<std::size_t>(col - row + b);
    if (used[slot]) {
      throwInvalid("upper_entries", "entry (" + std::to_string(upper_entries[e].first) + ", " +
                                        std::to_string(upper_entries[e].second) + ") appears twice");
    }
    used[slot] = 1;
    position[e] = static_cast<int>(slot);
  }
  values_ = Vector::Zero(static_cast<Eigen::Index>(slots));
  l_values_ = Vector::Zero(static_cast<Eigen::Index>(n_) * b);
  d_ = Vector::Zero(n_);
  y_ = Vector::Zero(std::max(b, 1));
  permuted_ = Vector::Zero(natural_order_ ? 0 : n_);
  // The general path's structures stay empty.
  column_start_.clear();
  row_index_.clear();
  parent_.clear();
  l_column_start_.clear();
  l_rows_.clear();
  l_column_fill_.clear();
  flag_.clear();
  reach_.clear();
  return position;
}

long SparseLdlt::factorNonZeros() const {
  if (bandwidth_ < 0) return static_cast<long>(l_rows_.size());
  const long n = n_, b = std::min<long>(bandwidth_, n_);
  return n * b - b * (b + 1) / 2;  // the band below the diagonal
}

bool SparseLdlt::factorizeBand(bool positive_definite) {
  const int b = bandwidth_;
  const detail::BandFactorization seen =
      detail::bandFactorize(n_, b, values_.data(), l_values_.data(), d_.data(), y_.data(), positive_definite);
  // The general path's rule: the first pivot with |d_k| ≤ n·eps·max(|A_kk|, scale), or not
  // positive when asked, breaks down. The sweep stopped at a zero or non-positive pivot; a small
  // one is found by comparing the sweep's extremes, and only then (rarely) located by a rescan.
  const double eps = std::numeric_limits<double>::epsilon();
  breakdown_index_ = -1;
  if (seen.stopped == n_ && seen.smallest > static_cast<double>(n_) * eps * seen.scale) {
    pivot_ratio_ = n_ == 0 ? 1.0 : seen.smallest / seen.largest;
    return true;
  }
  double scale = 0.0;
  const double* diagonal = values_.data() + b;
  for (int k = 0; k < n_; ++k) scale = std::max(scale, std::abs(diagonal[static_cast<long>(k) * (b + 1)]));
  const double threshold = static_cast<double>(n_) * eps * scale;
  const int formed = std::min(seen.stopped + 1, n_);  // the stopping pivot was formed, and fails below
  for (int k = 0; k < formed; ++k) {
    const double dk = d_[k];
    if (!(std::abs(dk) > threshold) || (positive_definite && !(dk > 0.0))) {
      breakdown_index_ = permutation_[static_cast<std::size_t>(k)];
      break;
    }
  }
  pivot_ratio_ = 0.0;
  return false;
}

void SparseLdlt::solveBandInPlace(Eigen::Ref<Vector> x) const {
  if (natural_order_) {
    detail::bandSolveInPlace(n_, bandwidth_, l_values_.data(), d_.data(), x.data());
    return;
  }
  for (int k = 0; k < n_; ++k) permuted_[k] = x[permutation_[static_cast<std::size_t>(k)]];
  detail::bandSolveInPlace(n_, bandwidth_, l_values_.data(), d_.data(), permuted_.data());
  for (int k = 0; k < n_; ++k) x[permutation_[static_cast<std::size_t>(k)]] = permuted_[k];
}

bool SparseLdlt::factorize(bool positive_definite) {
  if (bandwidth_ >= 0) return factorizeBand(positive_definite);
  const double eps = std::numeric_limits<double>::epsilon();
  double scale = 0.0;
  for (int k = 0; k < n_; ++k) scale = std::max(scale, std::abs(values_[column_start_[static_cast<std::size_t>(k) + 1] - 1]));
  double smallest = std::numeric_limits<double>::infinity(), largest = 0.0;
  breakdown_index_ = -1;
  for (int k = 0; k < n_; ++k) {
    // Row k of L: solve L(0:k, 0:k) y = A(0:k, k) over the rows the elimination tree reaches.
    const auto uk = static_cast<std::size_t>(k);
    int top = n_;
    flag_[uk] = k;
    l_column_fill_[uk] = 0;
    double diagonal = 0.0;
    for (int p = column_start_[uk]; p < column_start_[uk + 1]; ++p) {
      int i = row_index_[static_cast<std::size_t>(p)];
      if (i == k) {
        diagonal = values_[p];
        continue;
      }
      y_[i] += values_[p];
      int length = 0;
      for (; flag_[static_cast<std::size_t>(i)] != k; i = parent_[static_cast<std::size_t>(i)]) {
        reach_[static_cast<std::size_t>(length++)] = i;
        flag_[static_cast<std::size_t>(i)] = k;
      }
      while (length > 0) reach_[static_cast<std::size_t>(--top)] = reach_[static_cast<std::size_t>(--length)];
    }
    double dk = diagonal;
    for (; top < n_; ++top) {
      const int i = reach_[static_cast<std::size_t>(top)];
      const auto ui = static_cast<std::size_t>(i);
      const double yi = y_[i];
      y_[i] = 0.0;
      const int end = l_column_start_[ui] + l_column_fill_[ui];
      for (int p = l_column_start_[ui]; p < end; ++p) y_[l_rows_[static_cast<std::size_t>(p)]] -= l_values_[p] * yi;
      const double l_ki = yi / d_[i];
      dk -= l_ki * yi;
      l_rows_[static_cast<std::size_t>(end)] = k;
      l_values_[end] = l_ki;
      ++l_column_fill_[ui];
    }
    const double threshold = static_cast<double>(n_) * eps * std::max(std::abs(diagonal), scale);
    if (!(std::abs(dk) > threshold) || (positive_definite && !(dk > 0.0))) {
      breakdown_index_ = permutation_[uk];
      // Leave the scratch clean for the next factorization.
      y_.setZero();
      pivot_ratio_ = 0.0;
      return false;
    }
    d_[k] = dk;
    smallest = std::min(smallest, std::abs(dk));
    largest = std::max(largest, std::abs(dk));
  }
  pivot_ratio_ = n_ == 0 ? 1.0 : smallest / largest;
  return true;
}

void SparseLdlt::solveInPlace(Eigen::Ref<Vector> x) const {
  if (bandwidth_ >= 0) {
    solveBandInPlace(x);
    return;
  }
  for (int k = 0; k < n_; ++k) permuted_[k] = x[permutation_[static_cast<std::size_t>(k)]];
  for (int j = 0; j < n_; ++j) {  // L y = b
    const double yj = permuted_[j];
    for (int p = l_column_start_[static_cast<std::size_t>(j)]; p < l_column_start_[static_cast<std::size_t>(j) + 1]; ++p) {
      permuted_[l_rows_[static_cast<std::size_t>(p)]] -= l_values_[p] * yj;
    }
  }
  for (int j = 0; j < n_; ++j) permuted_[j] /= d_[j];
  for (int j = n_ - 1; j >= 0; --j) {  // Lᵀ x = y
    double sum = permuted_[j];
    for (int p = l_column_start_[static_cast<std::size_t>(j)]; p < l_column_start_[static_cast<std::size_t>(j) + 1]; ++p) {
      sum -= l_values_[p] * permuted_[l_rows_[static_cast<std::size_t>(p)]];
    }
    permuted_[j] = sum;
  }
  for (int k = 0; k < n_; ++k) x[permutation_[static_cast<std::size_t>(k)]] = permuted_[k];
}

}  // namespace kktdae

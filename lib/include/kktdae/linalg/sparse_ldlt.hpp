#pragma once
/// @file
/// Sparse LDLᵀ of a symmetric matrix with a fixed pattern: ordering and symbolic analysis once,
/// numeric factorization and solves many times without allocating.

#include <utility>
#include <vector>

#include "kktdae/core/types.hpp"

namespace kktdae {

/// P A Pᵀ = L D Lᵀ, L unit lower triangular, D diagonal, P a fill-reducing permutation
/// (approximate minimum degree). An up-looking factorization without pivoting: it exists for
/// symmetric positive definite A (every pivot > 0) and for quasi-definite A = [H Bᵀ; B −G] with
/// H, G positive definite (any symmetric ordering works), which is what the sparse KKT solves
/// factorize. Eigen's SimplicialLDLT permutes a copy of A on every factorize() (an allocation
/// per step); here the permutation is folded into the value positions handed out by analyze(),
/// so callers write A's values straight into the permuted storage.
///
/// A banded pattern takes a band path instead (docs/sparse-path.md, "Banded patterns"): when
/// the natural order has bandwidth ≤ max_bandwidth (a chain's J M⁻¹ Jᵀ is tridiagonal), or the
/// fill-reducing order has, the values are kept in band storage and factorized and solved in
/// band sweeps — no elimination tree, no scatter — with the same pivots and the same failure
/// rules as the general path.
class SparseLdlt {
 public:
  /// The default largest bandwidth analyze() factorizes as a band: band storage costs up to
  /// b + 1 values per row and the factorization O(b²) per row whatever the pattern inside the
  /// band, which beats the general elimination's bookkeeping for small b.
  static constexpr int kDefaultMaxBandwidth = 8;

  /// Analyzes the pattern of an n×n symmetric matrix given by its upper-triangle entries
  /// (row ≤ col; every diagonal entry must be present, each entry once). Returns, for each
  /// entry in order, the index of values() that holds it. `reorder` false keeps the natural
  /// order (tests; banded matrices). `max_bandwidth` ≥ 0 is the largest bandwidth taken by the
  /// band path (natural order first, then the fill-reducing one); −1 always takes the general
  /// path. Throws std::invalid_argument for an entry out of range or below the diagonal, a
  /// missing diagonal, a duplicate, or max_bandwidth < −1. Allocates (call once).
  std::vector<int> analyze(int n, const std::vector<std::pair<int, int>>& upper_entries, bool reorder = true,
                           int max_bandwidth = kDefaultMaxBandwidth);

  /// The permuted upper triangle's values: write A's entries here at the indices analyze()
  /// returned. The other slots hold zeros (analyze() sets them; they must stay zero: on the band
  /// path they are the band's structural zeros). Size: at least the number of entries (n(b+1)
  /// on the band path).
  ///@{
  Vector& values() { return values_; }
  const Vector& values() const { return values_; }
  ///@}

  /// Numeric factorization of the current values(). Returns false when a pivot is zero or
  /// negligible (|d_k| ≤ n·eps·max(|A_kk|, scale)) or, with `positive_definite`, not positive;
  /// breakdownIndex() then names the original row. Allocates nothing.
  bool factorize(bool positive_definite);

  /// x ← A⁻¹ x with the last successful factorization. Size of x: n. Allocates nothing.
  void solveInPlace(Eigen::Ref<Vector> x) const;

  /// min |d_k| / max |d_k| of the last factorization: a cheap conditioning indicator (a lower
  /// bound on neither side of rcond, but 0 exactly when A is singular and small when a pivot
  /// collapsed). 0 before any factorization.
  double pivotRatio() const { return pivot_ratio_; }
  /// The original row whose pivot broke down in the last failed factorize(); −1 otherwise.
  int breakdownIndex() const { return breakdown_index_; }
  /// Non-zeros of L (below the diagonal): the fill the ordering left.
  long factorNonZeros() const;
  /// The bandwidth b of the band path analyze() chose (0 for a diagonal matrix), or −1 for the
  /// general path.
  int bandwidth() const { return bandwidth_; }
  int size() const { return n_; }  ///< n, the matrix's size
  const std::vector<int>& permutation() const { return permutation_; }  ///< new index → original

 private:
  /// The band path's factorization and solve (bandwidth_ ≥ 0).
  bool factorizeBand(bool positive_definite);
  void solveBandInPlace(Eigen::Ref<Vector> x) const;
  /// Fills the band path's storage after the ordering was chosen; returns the value positions.
  std::vector<int> analyzeBand(const std::vector<std::pair<int, int>>& upper_entries, const std::vector<int>& inverse);

  int n_ = 0;
  int bandwidth_ = -1;                    // ≥ 0: band path (values_ and l_values_ in band storage)
  bool natural_order_ = true;             // permutation_ is the identity
  std::vector<int> permutation_;          // new → original
  std::vector<int> column_start_;         // permuted upper triangle, compressed by column
  std::vector<int> row_index_;
  Vector values_;
  std::vector<int> parent_;               // elimination tree
  std::vector<int> l_column_start_;       // L, compressed by column (strictly lower)
  std::vector<int> l_rows_;
  Vector l_values_;
  Vector d_;
  // Factorization scratch (sized in analyze, reused).
  std::vector<int> l_column_fill_, flag_, reach_;
  Vector y_;
  mutable Vector permuted_;
  double pivot_ratio_ = 0.0;
  int breakdown_index_ = -1;
};

}  // namespace kktdae

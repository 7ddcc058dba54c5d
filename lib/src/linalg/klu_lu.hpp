#pragma once
// KLU's sparse LU of a matrix in a fixed compressed-column pattern (internal header): one symbolic
// analysis, then factorizations that keep the pivot sequence while it stays healthy.

#include <klu.h>

namespace kktdae::detail {

/// SuiteSparse KLU (64-bit indices) on one fixed pattern. The constructor runs the symbolic
/// analysis (BTF + AMD ordering). The first factorize() pivots (KLU allocates its numeric
/// object); later ones refactorize with the same pivot sequence (klu_l_refactor: no
/// allocation) and pivot afresh only when the pivot ratio falls below 1e-3 times the one the
/// last pivoting factorization reached. The pattern arrays are passed to every call so that
/// their owner may move. Not copyable.
class KluLu {
 public:
  /// Throws std::runtime_error naming `what` when KLU refuses the pattern (n columns).
  KluLu(long n, const long* column_start, const long* row_index, const char* what);
  ~KluLu();
  KluLu(const KluLu&) = delete;
  KluLu& operator=(const KluLu&) = delete;

  /// LU of `values` in the pattern. False when the matrix is singular (singularColumn() says
  /// where); pivotRatio() is then 0.
  bool factorize(const long* column_start, const long* row_index, const double* values);
  /// KLU's min |u_kk| / max |u_kk| of the last factorization (a crude reciprocal condition).
  double pivotRatio() const { return pivot_ratio_; }
  /// After a failed factorize(): the column whose pivot vanished, or −1.
  long singularColumn() const { return singular_column_; }
  /// Pivoting factorizations so far (the first, plus every fallback from a refactorization).
  long fullFactorizations() const { return full_factorizations_; }
  /// x ← A⁻¹ x (n entries). Allocates nothing.
  void solveInPlace(double* x);

 private:
  long n_;
  klu_l_common common_{};
  klu_l_symbolic* symbolic_ = nullptr;
  klu_l_numeric* numeric_ = nullptr;
  double pivot_ratio_ = 0.0, pivot_ratio_at_full_ = 0.0;
  long singular_column_ = -1;
  long full_factorizations_ = 0;
};

}  // namespace kktdae::detail

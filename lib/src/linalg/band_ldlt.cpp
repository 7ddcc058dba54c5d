#include "band_ldlt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kktdae::detail {
namespace {

/// True when a pivot stops the factorization at once: a zero or NaN (the next rows would divide
/// by it) or, for a positive definite factorization, one that is not positive.
inline bool pivotStops(double dk, bool positive_definite) {
  return positive_definite ? !(dk > 0.0) : !(std::abs(dk) > 0.0);
}

}  // namespace

BandFactorization bandFactorize(int n, int b, const double* values, double* l, double* d, double* y,
                                bool positive_definite) {
  BandFactorization seen;
  seen.smallest = std::numeric_limits<double>::infinity();
  if (b == 1) {
    // The tridiagonal recurrence: row k's only entry above the diagonal is A(k−1, k).
    double previous = 0.0;
    for (int k = 0; k < n; ++k) {
      const double off = values[2 * k], diagonal = values[2 * k + 1];
      double dk = diagonal;
      if (k > 0) {
        const double l_k = off / previous;
        dk = diagonal - l_k * off;
        l[k] = l_k;
      }
      d[k] = dk;
      if (pivotStops(dk, positive_definite)) {
        seen.stopped = k;
        return seen;
      }
      previous = dk;
      seen.scale = std::max(seen.scale, std::abs(diagonal));
      seen.smallest = std::min(seen.smallest, std::abs(dk));
      seen.largest = std::max(seen.largest, std::abs(dk));
    }
    seen.stopped = n;
    return seen;
  }
  for (int k = 0; k < n; ++k) {
    const double* a = values + static_cast<long>(k) * (b + 1);
    double* l_k = l + static_cast<long>(k) * b;
    const int first = std::max(0, b - k);  // slot t holds column j = k − b + t ≥ 0
    double dk = a[b];
    for (int t = first; t < b; ++t) {
      const int j = k - b + t;
      const double* l_j = l + static_cast<long>(j) * b;  // L(j, k − b + s) = l_j[s − t + b]
      double y_t = a[t];
      for (int s = first; s < t; ++s) y_t -= l_j[s - t + b] * y[s];
      y[t] = y_t;
      const double l_kj = y_t / d[j];
      dk -= l_kj * y_t;
      l_k[t] = l_kj;
    }
    d[k] = dk;
    if (pivotStops(dk, positive_definite)) {
      seen.stopped = k;
      return seen;
    }
    seen.scale = std::max(seen.scale, std::abs(a[b]));
    seen.smallest = std::min(seen.smallest, std::abs(dk));
    seen.largest = std::max(seen.largest, std::abs(dk));
  }
  seen.stopped = n;
  return seen;
}

void bandSolveInPlace(int n, int b, const double* l, const double* d, double* x) {
  if (b == 1) {
    for (int k = 1; k < n; ++k) x[k] -= l[k] * x[k - 1];
    if (n == 0) return;
    double next = x[n - 1] / d[n - 1];
    x[n - 1] = next;
    for (int k = n - 2; k >= 0; --k) {
      next = x[k] / d[k] - l[k + 1] * next;
      x[k] = next;
    }
    return;
  }
  for (int k = 0; k < n; ++k) {  // L y = x, row by row, columns ascending
    const double* l_k = l + static_cast<long>(k) * b;
    double sum = x[k];
    for (int t = std::max(0, b - k); t < b; ++t) sum -= l_k[t] * x[k - b + t];
    x[k] = sum;
  }
  for (int j = n - 1; j >= 0; --j) {  // Lᵀ x = D⁻¹ y, the rows below j ascending
    double sum = x[j] / d[j];
    const int last = std::min(n - 1, j + b);
    for (int r = j + 1; r <= last; ++r) sum -= l[static_cast<long>(r) * b + (j - r + b)] * x[r];
    x[j] = sum;
  }
}

}  // namespace kktdae::detail

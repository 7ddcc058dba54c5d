#pragma once
// ‖x‖∞ and finiteness of the short vectors a driver looks at after every step (internal header).
// Plain loops: a few instructions per entry, where Eigen's vectorized reductions spend more than
// that setting up for a two-link chain's six coordinates.

#include <algorithm>
#include <cmath>
#include <limits>

#include "kktdae/core/types.hpp"

namespace kktdae::detail {

/// max |xᵢ|, 0 for an empty vector: lpNorm<Infinity>()'s value for finite x (a maximum does not
/// depend on the order). NaN entries are skipped: the drivers check finiteness first.
inline double maxAbs(const double* x, Eigen::Index size) {
  double largest = 0.0;
  for (Eigen::Index i = 0; i < size; ++i) largest = std::max(largest, std::abs(x[i]));
  return largest;
}

inline double maxAbs(ConstVectorRef x) { return maxAbs(x.data(), x.size()); }
inline double maxAbs(const Vector& x) { return maxAbs(x.data(), x.size()); }

/// True when every entry of x is finite, as allFinite(): xᵢ − xᵢ is 0 for a finite entry and
/// NaN for ±inf or NaN, and a NaN stays in the sum.
inline bool allFinite(const Vector& x) {
  double probe = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) probe += x[i] - x[i];
  return probe == 0.0;
}

/// allFinite(q) and maxAbs(q) in one pass: ‖q‖∞ when every entry of q is finite, NaN otherwise.
inline double finiteMaxAbs(const Vector& q) {
  double probe = 0.0, largest = 0.0;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    probe += q[i] - q[i];
    largest = std::max(largest, std::abs(q[i]));
  }
  return probe == 0.0 ? largest : std::numeric_limits<double>::quiet_NaN();
}

/// finiteMaxAbs(q) and allFinite(v) in one pass: ‖q‖∞ when every entry of q and v is finite,
/// NaN otherwise (q̇ has q's size in every model; a different size takes two passes).
inline double finiteMaxAbs(const Vector& q, const Vector& v) {
  if (v.size() != q.size()) return allFinite(v) ? finiteMaxAbs(q) : std::numeric_limits<double>::quiet_NaN();
  double probe = 0.0, largest = 0.0;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    probe += (q[i] - q[i]) + (v[i] - v[i]);
    largest = std::max(largest, std::abs(q[i]));
  }
  return probe == 0.0 ? largest : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace kktdae::detail

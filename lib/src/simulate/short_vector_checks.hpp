#pragma once
// ‖x‖∞ and finiteness of the short vectors a driver looks at after every step (internal header).
// Plain loops: a few instructions per entry, where Eigen's vectorized reductions spend more than
// that setting up for a two-link chain's six coordinates.

#include <algorithm>
#include <cmath>
#include <limits>

#include "../integrators/euler_updates.hpp"
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

// finiteMaxAbs(q, v), the one pass over q and q̇ of the fixed-step driver, is in
// integrators/euler_updates.hpp, beside the Euler updates that fold the same pass into the step.

}  // namespace kktdae::detail

#pragma once
// The explicit and semi-implicit Euler updates as inline loops (internal header): the public step
// functions (fixed_steppers.cpp) and the fixed-step driver's loop for the explicit methods
// (explicit_stepper.hpp) run the same arithmetic, so the driver's steps keep every bit of the
// functions' while it also sees each new entry once, in a register, for its finiteness check.

#include <algorithm>
#include <cmath>
#include <limits>

#include "kktdae/core/types.hpp"

namespace kktdae::detail {

/// q⁺ = q + dt q̇, q̇⁺ = q̇ + dt q̈, entry by entry (the product first, as the Eigen expression
/// x + dt·y). visit(q⁺ᵢ, q̇⁺ᵢ) sees each new pair once.
template <class Visit>
inline void explicitEulerUpdate(double* q, double* v, const double* a, Eigen::Index nq, double dt, Visit&& visit) {
  for (Eigen::Index i = 0; i < nq; ++i) {
    q[i] += dt * v[i];
    v[i] += dt * a[i];
    visit(q[i], v[i]);
  }
}

/// q̇⁺ = q̇ + dt q̈, then q⁺ = q + dt q̇⁺ (the symplectic-Euler ordering); visit as above.
template <class Visit>
inline void semiImplicitEulerUpdate(double* q, double* v, const double* a, Eigen::Index nq, double dt,
                                    Visit&& visit) {
  for (Eigen::Index i = 0; i < nq; ++i) {
    v[i] += dt * a[i];
    q[i] += dt * v[i];
    visit(q[i], v[i]);
  }
}

/// The visitor of a step function that checks nothing.
struct NoVisit {
  void operator()(double, double) const {}
};

/// The visitor of the driver: a sum of the new entries and ‖q⁺‖∞ in the same pass. A finite sum
/// proves every entry finite (an infinite or NaN term leaves any sum non-finite), at two additions
/// an entry; a non-finite sum may still be finite entries that overflowed it, so the exact
/// finiteMaxAbs() decides then.
struct FiniteMaxVisit {
  double sum = 0.0;
  double largest = 0.0;
  void operator()(double q, double v) {
    sum += q + v;
    largest = std::max(largest, std::abs(q));
  }
  bool provedFinite() const { return sum - sum == 0.0; }
};

/// ‖q‖∞ when every entry of q and v is finite, NaN otherwise: xᵢ − xᵢ is 0 for a finite entry and
/// NaN for ±inf or NaN, and a NaN stays in the sum. One pass where the sizes agree (q̇ has q's size
/// in every model).
inline double finiteMaxAbs(const Vector& q, const Vector& v) {
  double probe = 0.0, largest = 0.0;
  const Eigen::Index common = std::min(q.size(), v.size());
  for (Eigen::Index i = 0; i < common; ++i) {
    probe += (q[i] - q[i]) + (v[i] - v[i]);
    largest = std::max(largest, std::abs(q[i]));
  }
  for (Eigen::Index i = common; i < q.size(); ++i) {
    probe += q[i] - q[i];
    largest = std::max(largest, std::abs(q[i]));
  }
  for (Eigen::Index i = common; i < v.size(); ++i) probe += v[i] - v[i];
  return probe == 0.0 ? largest : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace kktdae::detail

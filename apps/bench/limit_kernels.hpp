#pragma once
// The limit rows' kernels: one semi-implicit Euler step of seed 000's chain written by hand, with
// nothing of the library in it — what a step costs when every generality is given up. Unit point
// masses on unit links hanging from a pivot at the origin, gravity g along −y, Schur form with
// Baumgarte's stabilization (J q̈ = −γ − 2αφ̇ − β²φ):
//
//     d_k = p_k − p_{k−1} (p_{−1} = 0),  dv_k = v_k − v_{k−1},
//     φ_k = ½(|d_k|² − 1),  φ̇_k = d_k·dv_k,  γ_k = |dv_k|²,
//     A = J Jᵀ tridiagonal:  A_kk = |d_k|² (k = 0) or 2|d_k|²,  A_{k−1,k} = −d_{k−1}·d_k,
//     b_k = −(J f)_k − γ_k − 2αφ̇_k − β²φ_k,  (J f)_0 = −g d_0,y, (J f)_k = 0 for k ≥ 1,
//     A λ = b,  q̈_k = f + d_k λ_k − d_{k+1} λ_{k+1},  v ← v + dt q̈,  p ← p + dt v.
//
// Equal masses under uniform gravity have f_k − f_{k−1} = 0, so (J f)_k vanishes past the first
// link: the kernel uses that, as a hand-written kernel would (the library sums the same terms,
// which cancel exactly). The tridiagonal A is factorized by Cholesky in the same forward sweep
// that forms it and runs the forward substitution; the backward sweep solves for λ and steps
// each particle, recomputing d_k from the positions it has not moved yet. Two passes over the
// state, three scratch numbers per link. For the double pendulum the size is a template
// argument, so the compiler unrolls everything and keeps it in registers.
//
// The same step as the library's semi-implicit Euler with Stabilization::baumgarte(alpha, beta)
// on PendulumChain(PendulumChainParams::uniform(N)) up to round-off (the order of the sums
// differs); tests/unit/bench/limit_kernels_test.cpp checks it.

#include <array>
#include <cmath>
#include <vector>

namespace kktdae::bench::limit {

/// The chain's constants: gravity [m/s²] and Baumgarte's α [1/s], β [rad/s].
struct ChainConstants {
  double gravity = 9.81;  ///< g along −y
  double alpha = 0.0;     ///< the 2αφ̇ term's rate
  double beta = 0.0;      ///< the β²φ term's frequency
};

/// Scratch for chainStep: per link the Cholesky factor's diagonal and sub-diagonal and the
/// forward-substituted right-hand side. Sized once; the step allocates nothing.
struct ChainScratch {
  explicit ChainScratch(int links) : diagonal(links), lower(links), forward(links) {}
  std::vector<double> diagonal, lower, forward;
};

namespace detail {

/// The step on `links` links; `kLinks` > 0 fixes the size at compile time (links is then ignored).
/// q and v hold 3 numbers per particle (x, y, z). Returns false if A is not positive definite.
template <int kLinks>
inline bool chainStep(int links, double* q, double* v, double dt, const ChainConstants& c, double* diagonal,
                      double* lower, double* forward) {
  const int n = kLinks > 0 ? kLinks : links;
  const double two_alpha = 2.0 * c.alpha, beta_squared = c.beta * c.beta;
  // Forward sweep: the terms of row k, the k-th row of A's Cholesky factor, forward substitution.
  double px = 0.0, py = 0.0, pz = 0.0, pvx = 0.0, pvy = 0.0, pvz = 0.0;  // particle k − 1 (the pivot)
  double dx_prev = 0.0, dy_prev = 0.0, dz_prev = 0.0;
  for (int k = 0; k < n; ++k) {
    const double x = q[3 * k], y = q[3 * k + 1], z = q[3 * k + 2];
    const double vx = v[3 * k], vy = v[3 * k + 1], vz = v[3 * k + 2];
    const double dx = x - px, dy = y - py, dz = z - pz;
    const double dvx = vx - pvx, dvy = vy - pvy, dvz = vz - pvz;
    const double dd = dx * dx + dy * dy + dz * dz;
    const double phi = 0.5 * (dd - 1.0);
    const double phi_dot = dx * dvx + dy * dvy + dz * dvz;
    const double gamma = dvx * dvx + dvy * dvy + dvz * dvz;
    double b = -gamma - two_alpha * phi_dot - beta_squared * phi;
    double l_kk;
    if (k == 0) {
      b += c.gravity * dy;  // −(J f)_0 = g d_0,y
      l_kk = std::sqrt(dd);
      forward[0] = b / l_kk;
    } else {
      const double off = -(dx_prev * dx + dy_prev * dy + dz_prev * dz);  // A_{k−1,k}
      const double l = off / diagonal[k - 1];
      const double pivot = 2.0 * dd - l * l;
      if (!(pivot > 0.0)) return false;
      l_kk = std::sqrt(pivot);
      lower[k] = l;
      forward[k] = (b - l * forward[k - 1]) / l_kk;
    }
    if (!(l_kk > 0.0)) return false;
    diagonal[k] = l_kk;
    px = x, py = y, pz = z, pvx = vx, pvy = vy, pvz = vz;
    dx_prev = dx, dy_prev = dy, dz_prev = dz;
  }
  // Backward sweep: λ_k, then particle k's q̈ and step (d_{k+1}, λ_{k+1} carried from k + 1).
  double lambda_next = 0.0, dx_next = 0.0, dy_next = 0.0, dz_next = 0.0, l_next = 0.0;
  for (int k = n - 1; k >= 0; --k) {
    const double lambda = (forward[k] - l_next * lambda_next) / diagonal[k];
    double* p = q + 3 * k;
    double* w = v + 3 * k;
    const double dx = k > 0 ? p[0] - p[-3] : p[0];
    const double dy = k > 0 ? p[1] - p[-2] : p[1];
    const double dz = k > 0 ? p[2] - p[-1] : p[2];
    const double ax = dx * lambda - dx_next * lambda_next;
    const double ay = -c.gravity + (dy * lambda - dy_next * lambda_next);
    const double az = dz * lambda - dz_next * lambda_next;
    w[0] += dt * ax, w[1] += dt * ay, w[2] += dt * az;
    p[0] += dt * w[0], p[1] += dt * w[1], p[2] += dt * w[2];
    lambda_next = lambda, l_next = lower[k];
    dx_next = dx, dy_next = dy, dz_next = dz;
  }
  return true;
}

}  // namespace detail

/// One semi-implicit Euler step of an N-link chain (N = scratch's size) in place: q, v of 3N
/// numbers. Returns false (state partly stepped) if J Jᵀ is not positive definite.
inline bool chainStep(double* q, double* v, double dt, const ChainConstants& c, ChainScratch& s) {
  return detail::chainStep<0>(static_cast<int>(s.diagonal.size()), q, v, dt, c, s.diagonal.data(),
                              s.lower.data(), s.forward.data());
}

/// One semi-implicit Euler step of the double pendulum in place: q, v of 6 numbers; fixed size,
/// scratch on the stack.
inline bool doublePendulumStep(double* q, double* v, double dt, const ChainConstants& c) {
  std::array<double, 2> diagonal, lower, forward;
  return detail::chainStep<2>(2, q, v, dt, c, diagonal.data(), lower.data(), forward.data());
}

}  // namespace kktdae::bench::limit

#pragma once
/// @file
/// Baumgarte's error dynamics ë + 2αė + β²e = 0 in closed form, and what a fixed-step integrator
/// turns it into.

#include <Eigen/Core>

#include "kktdae/core/eigen_abi.hpp"
#include "kktdae/integrators/integrator.hpp"

namespace kktdae {

/// e(t) and ė(t).
struct ErrorValue {
  double e = 0.0;      ///< the error e(t) [units of φ]
  double e_dot = 0.0;  ///< its rate ė(t) [units of φ per s]
};

/// Exact solution of ë + 2αė + β²e = 0 from (e0, ė0) at t ≥ 0, valid uniformly across the under-
/// damped (α < β), critically damped and over-damped regimes: with κ = β² − α²,
/// e = e^{−αt} (e0 C(t) + (ė0 + α e0) S(t)), C = cos √κ t, S = sin(√κ t)/√κ (cosh, sinh for
/// κ < 0, C = 1, S = t at κ = 0). Throws std::invalid_argument for negative or non-finite α, β.
ErrorValue baumgarteErrorAt(double alpha, double beta, double e0, double e_dot0, double t);

/// The 2×2 matrix that one step of `integrator` (fixed-step only) applies to (e, ė) when the
/// error obeys ė' = (ė, −2αė − β²e) exactly, as on a linear constraint with constant M and J.
Eigen::Matrix2d errorStepMatrix(Integrator integrator, double dt, double alpha, double beta);

/// Spectral radius of errorStepMatrix(): the error decays when < 1 and grows when > 1.
double errorStepSpectralRadius(Integrator integrator, double dt, double alpha, double beta);

/// The largest dt·ω (ω = β, α = ζω) for which the spectral radius stays ≤ 1: the discrete
/// stability limit of Baumgarte stabilization under `integrator`. Closed forms: explicit Euler
/// 2ζ (ζ ≤ 1) or 2(ζ − √(ζ²−1)) (ζ > 1); semi-implicit Euler 2(√(ζ²+1) − ζ); RK4 from its
/// stability polynomial (2.785 at ζ = 1), found by bisection. Throws for adaptive integrators
/// or ζ < 0.
double baumgarteStabilityLimit(Integrator integrator, double zeta);

}  // namespace kktdae

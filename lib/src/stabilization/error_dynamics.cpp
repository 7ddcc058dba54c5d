#include "kktdae/stabilization/error_dynamics.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

ErrorValue baumgarteErrorAt(double alpha, double beta, double e0, double e_dot0, double t) {
  requireNonNegative("alpha", alpha);
  requireNonNegative("beta", beta);
  const double kappa = beta * beta - alpha * alpha;
  const double root = std::sqrt(std::abs(kappa));
  double C = 1.0, S = t;
  // Away from critical damping use the trigonometric or hyperbolic pair; near it, their ratio
  // sin(x)/x is 1 to rounding, and the limit C = 1, S = t is the exact critical solution.
  if (root * t > 1e-8) {
    if (kappa > 0.0) {
      C = std::cos(root * t);
      S = std::sin(root * t) / root;
    } else {
      C = std::cosh(root * t);
      S = std::sinh(root * t) / root;
    }
  }
  const double decay = std::exp(-alpha * t);
  const double rate = e_dot0 + alpha * e0;
  ErrorValue value;
  value.e = decay * (e0 * C + rate * S);
  value.e_dot = -alpha * value.e + decay * (-kappa * e0 * S + rate * C);
  return value;
}

Eigen::Matrix2d errorStepMatrix(Integrator integrator, double dt, double alpha, double beta) {
  requirePositive("dt", dt);
  requireNonNegative("alpha", alpha);
  requireNonNegative("beta", beta);
  Eigen::Matrix2d A;
  A << 0.0, 1.0, -beta * beta, -2.0 * alpha;
  const Eigen::Matrix2d I = Eigen::Matrix2d::Identity();
  const Eigen::Matrix2d hA = dt * A;
  switch (integrator) {
    case Integrator::ExplicitEuler: return I + hA;
    case Integrator::SemiImplicitEuler: {
      // ė⁺ = ė + dt·(−β²e − 2αė), then e⁺ = e + dt·ė⁺.
      Eigen::Matrix2d M;
      M << 1.0 - dt * dt * beta * beta, dt * (1.0 - 2.0 * alpha * dt), -dt * beta * beta, 1.0 - 2.0 * alpha * dt;
      return M;
    }
    case Integrator::Rk4: {
      const Eigen::Matrix2d hA2 = hA * hA;
      return I + hA + hA2 / 2.0 + hA2 * hA / 6.0 + hA2 * hA2 / 24.0;
    }
    default: break;
  }
  throwInvalid("integrator", std::string(toString(integrator)) + " has no fixed one-step map");
}

double errorStepSpectralRadius(Integrator integrator, double dt, double alpha, double beta) {
  return Eigen::EigenSolver<Eigen::Matrix2d>(errorStepMatrix(integrator, dt, alpha, beta), false)
      .eigenvalues()
      .cwiseAbs()
      .maxCoeff();
}

double baumgarteStabilityLimit(Integrator integrator, double zeta) {
  requireNonNegative("zeta", zeta);
  switch (integrator) {
    case Integrator::ExplicitEuler:
      // Eigenvalues 1 + x·(−ζ ± √(ζ²−1)): |·| ≤ 1 gives x ≤ 2ζ under-damped; over-damped the
      // faster root −ζ − √(ζ²−1) must stay within −2.
      return zeta <= 1.0 ? 2.0 * zeta : 2.0 * (zeta - std::sqrt(zeta * zeta - 1.0));
    case Integrator::SemiImplicitEuler:
      // det = 1 − 2ζx and Jury's condition x² + 4ζx < 4 (the binding one): x < 2(√(ζ²+1) − ζ).
      return 2.0 * (std::sqrt(zeta * zeta + 1.0) - zeta);
    case Integrator::Rk4: {
      // No closed form along a general ray: walk out to the first x with radius > 1, then bisect.
      auto unstable = [&](double x) { return errorStepSpectralRadius(integrator, x, zeta, 1.0) > 1.0 + 1e-13; };
      double lo = 0.0, hi = 0.01;
      while (!unstable(hi)) {
        lo = hi;
        hi += 0.01;
        if (hi > 10.0) return hi;  // not reached for RK4 (its region ends before 3)
      }
      for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (unstable(mid) ? hi : lo) = mid;
      }
      return lo;
    }
    default: break;
  }
  throwInvalid("integrator", std::string(toString(integrator)) + " has no fixed-step stability limit");
}

}  // namespace kktdae

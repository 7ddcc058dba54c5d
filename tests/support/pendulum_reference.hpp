#pragma once
// The exact motion of a parallelogram linkage's crank (its coupler only translates, so the crank
// angle obeys a simple pendulum's equation), integrated far more finely than any run it checks.

#include <cmath>

namespace kktdae::testing {

/// Advances (θ, θ̇) of θ̈ = −(g/L) cos θ (θ from +x, gravity along −y) by `duration`, by RK4 at
/// `substeps` steps.
inline void advancePendulum(double gravity_over_length, double& theta, double& theta_dot, double duration,
                            int substeps) {
  const double h = duration / substeps;
  auto acceleration = [&](double angle) { return -gravity_over_length * std::cos(angle); };
  for (int i = 0; i < substeps; ++i) {
    const double k1x = theta_dot, k1v = acceleration(theta);
    const double k2x = theta_dot + 0.5 * h * k1v, k2v = acceleration(theta + 0.5 * h * k1x);
    const double k3x = theta_dot + 0.5 * h * k2v, k3v = acceleration(theta + 0.5 * h * k2x);
    const double k4x = theta_dot + h * k3v, k4v = acceleration(theta + h * k3x);
    theta += h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x);
    theta_dot += h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
}

/// θ(t_end) of the same from (θ, θ̇) at t = 0: error ~1e-14 over a few seconds with the default.
inline double pendulumAngle(double gravity_over_length, double theta, double theta_dot, double t_end,
                            int substeps = 20000) {
  advancePendulum(gravity_over_length, theta, theta_dot, t_end, substeps);
  return theta;
}

}  // namespace kktdae::testing

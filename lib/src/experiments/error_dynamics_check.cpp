#include "kktdae/experiments/error_dynamics_check.hpp"

#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae {

void ErrorDynamicsCheckOptions::validate() const {
  requireNonNegative("alpha", alpha);
  requireNonNegative("beta", beta);
  requirePositive("horizon", horizon);
  requirePositive("output_dt", output_dt);
  requirePositive("rtol", rtol);
  requirePositive("atol", atol);
}

ErrorDynamicsCheck checkErrorDynamics(const ConstrainedSystem& system, const State& start,
                                      const ErrorDynamicsCheckOptions& options) {
  options.validate();
  const int nc = system.nc();
  SimulationOptions run;
  run.integrator = options.integrator;
  run.dt = options.output_dt;
  run.steps = std::lround(options.horizon / options.output_dt);
  run.stabilization = Stabilization::baumgarte(options.alpha, options.beta);
  run.adaptive.rtol = options.rtol;
  run.adaptive.atol = options.atol;

  Vector phi(nc), phi_t(nc);
  Matrix J(nc, system.nq());
  std::vector<double> times;
  std::vector<Vector> e, e_dot;
  ErrorDynamicsCheck check;
  check.summary = simulate(system, start, run, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    system.constraint(q, t, phi);
    system.constraintJacobian(q, t, J);
    system.constraintTimeDerivative(q, t, phi_t);
    times.push_back(t);
    e.push_back(phi);
    e_dot.push_back(J * v + phi_t);
  });
  if (times.empty()) return check;

  for (int k = 0; k < nc; ++k) {
    const double e0 = e.front()[k], e_dot0 = e_dot.front()[k];
    check.e0_max = std::max(check.e0_max, std::abs(e0));
    double scale = 0.0, scale_rate = 0.0, deviation = 0.0, deviation_rate = 0.0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      const ErrorValue exact = baumgarteErrorAt(options.alpha, options.beta, e0, e_dot0, times[i] - times.front());
      scale = std::max(scale, std::abs(exact.e));
      scale_rate = std::max(scale_rate, std::abs(exact.e_dot));
      deviation = std::max(deviation, std::abs(e[i][k] - exact.e));
      deviation_rate = std::max(deviation_rate, std::abs(e_dot[i][k] - exact.e_dot));
    }
    if (scale > 0.0) check.max_rel_deviation = std::max(check.max_rel_deviation, deviation / scale);
    if (scale_rate > 0.0) check.max_rel_deviation_rate = std::max(check.max_rel_deviation_rate, deviation_rate / scale_rate);
  }
  return check;
}

}  // namespace kktdae

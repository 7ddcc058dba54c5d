#include "kktdae/experiments/stability_bisection.hpp"

#include <cmath>
#include <limits>

#include <tuple>

#include "bracket_bisection.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae {

void StabilityBisectionOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  requirePositive("dt", dt);
  requireNonNegative("zeta", zeta);
  requirePositive("horizon", horizon);
  requireNonNegative("lower", lower);
  requireNonNegative("upper", upper);
  requirePositive("tolerance", tolerance);
}

StabilityBisection bisectStabilityLimit(const ConstrainedSystem& system, const State& start,
                                        const StabilityBisectionOptions& options) {
  options.validate();
  double lo = 0.0, hi = 0.0;
  std::tie(lo, hi) = detail::limitBracket(options.integrator, options.zeta, options.lower, options.upper);

  StabilityMapOptions cell;
  cell.integrator = options.integrator;
  cell.dts = {options.dt};
  cell.zeta = options.zeta;
  cell.horizon = options.horizon;
  cell.min_steps = options.min_steps;
  cell.blowup_ratio = options.blowup_ratio;
  cell.decay_ratio = options.decay_ratio;
  cell.form = options.form;
  cell.parallel.threads = 1;  // one run at a time; callers parallelize over whole bisections
  StabilityBisection result;
  auto classify = [&](double x) {
    cell.omegas = {x / options.dt};
    ++result.runs;
    return runStabilityMap(system, start, cell).front().behaviour;
  };
  auto stable = [](ErrorBehaviour b) { return b == ErrorBehaviour::Decays || b == ErrorBehaviour::Bounded; };
  result.at_lower = classify(lo);
  result.at_upper = classify(hi);
  result.limit = std::numeric_limits<double>::quiet_NaN();
  result.lower = lo;
  result.upper = hi;
  if (!stable(result.at_lower)) {
    result.message = std::string("unstable (") + std::string(toString(result.at_lower)) + ") already at dt*omega = " + formatDouble(lo);
    return result;
  }
  if (stable(result.at_upper)) {
    result.message = std::string("still stable (") + std::string(toString(result.at_upper)) + ") at dt*omega = " + formatDouble(hi);
    return result;
  }
  std::tie(result.lower, result.upper) = detail::bisectBracket(lo, hi, options.tolerance, [&](double mid) {
    const ErrorBehaviour behaviour = classify(mid);
    (stable(behaviour) ? result.at_lower : result.at_upper) = behaviour;
    return stable(behaviour);
  });
  result.limit = 0.5 * (result.lower + result.upper);
  result.found = true;
  return result;
}

}  // namespace kktdae

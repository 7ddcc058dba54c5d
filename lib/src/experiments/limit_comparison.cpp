#include "kktdae/experiments/limit_comparison.hpp"

#include <algorithm>
#include <utility>

#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae {

void LimitComparisonOptions::validate() const {
  requireNonNegative("zeta", zeta);
  requirePositive("horizon", horizon);
  if (min_steps < 1) throwInvalid("min_steps", "must be >= 1, got " + std::to_string(min_steps));
  requirePositive("tolerance", tolerance);
  requirePositive("runaway_probe_horizon", runaway_probe_horizon);
  requirePositive("runaway_energy_fraction", runaway_energy_fraction);
  if (!(reference_fraction > 0.0 && reference_fraction < 1.0)) {
    throwInvalid("reference_fraction", "must be in (0, 1), got " + formatDouble(reference_fraction));
  }
  parallel.validate();
}

std::vector<LimitComparisonRow> compareStabilityLimits(const std::vector<LimitComparisonCase>& cases,
                                                       const LimitComparisonOptions& options) {
  options.validate();
  for (const LimitComparisonCase& c : cases) {
    if (c.system == nullptr) throwInvalid("cases[].system", "null for model '" + c.model + "'");
  }
  auto stopped = [&]() { return options.interrupt != nullptr && options.interrupt->load(); };
  auto row = [&](std::size_t index) {
    const LimitComparisonCase& c = cases[index];
    LimitComparisonRow r;
    r.model = c.model;
    r.integrator = c.integrator;
    r.dt = c.dt;
    r.closed_form = baumgarteStabilityLimit(c.integrator, options.zeta);
    if (stopped()) return r;
    TrajectoryLimitOptions predict;
    predict.integrator = c.integrator;
    predict.dt = c.dt;
    predict.zeta = options.zeta;
    predict.horizon = options.horizon;
    predict.min_steps = options.min_steps;
    predict.tolerance = options.tolerance;
    predict.reference_dt_omega = options.reference_fraction * r.closed_form;
    r.predicted = predictStabilityLimit(*c.system, c.start, predict);
    if (options.variants) {
      for (auto [variant, limit] : {std::pair{NormalBlockVariant::FrozenJacobian, &r.frozen_jacobian},
                                    std::pair{NormalBlockVariant::NoGamma, &r.no_gamma},
                                    std::pair{NormalBlockVariant::Decoupled, &r.decoupled}}) {
        if (stopped()) return r;
        predict.variant = variant;
        *limit = predictStabilityLimit(*c.system, c.start, predict);
      }
    }
    if (stopped()) return r;
    if (options.runaway) {
      RunawayLimitOptions runaway;
      runaway.integrator = c.integrator;
      runaway.dt = c.dt;
      runaway.zeta = options.zeta;
      runaway.horizon = options.horizon;
      runaway.min_steps = std::max(10L, options.min_steps);
      runaway.probe_horizon = options.runaway_probe_horizon;
      runaway.energy_fraction = options.runaway_energy_fraction;
      runaway.tolerance = options.tolerance;
      r.runaway = predictRunawayLimit(*c.system, c.start, runaway);
    }
    if (stopped()) return r;
    StabilityBisectionOptions measure;
    measure.integrator = c.integrator;
    measure.dt = c.dt;
    measure.zeta = options.zeta;
    measure.horizon = options.horizon;
    measure.min_steps = options.min_steps;
    measure.tolerance = options.tolerance;
    r.measured = bisectStabilityLimit(*c.system, c.start, measure);
    return r;
  };
  return sweep(cases.size(), row, options.parallel);
}

}  // namespace kktdae

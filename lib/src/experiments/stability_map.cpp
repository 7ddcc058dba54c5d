#include "kktdae/experiments/stability_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kktdae/core/checks.hpp"

namespace kktdae {

const char* toString(ErrorBehaviour behaviour) {
  switch (behaviour) {
    case ErrorBehaviour::Decays: return "decays";
    case ErrorBehaviour::Bounded: return "bounded";
    case ErrorBehaviour::Grows: return "grows";
    case ErrorBehaviour::BlowUp: return "blow-up";
  }
  return "unknown";
}

void StabilityMapOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  if (dts.empty() || omegas.empty()) throwInvalid("dts/omegas", "need at least one value each");
  for (double dt : dts) requirePositive("dts[]", dt);
  for (double omega : omegas) requireNonNegative("omegas[]", omega);
  requireNonNegative("zeta", zeta);
  requirePositive("horizon", horizon);
  if (min_steps < 10) throwInvalid("min_steps", "must be >= 10, got " + std::to_string(min_steps));
  requirePositive("blowup_ratio", blowup_ratio);
  requirePositive("decay_ratio", decay_ratio);
}

std::vector<StabilityCell> runStabilityMap(const ConstrainedSystem& system, const State& start,
                                           const StabilityMapOptions& options) {
  options.validate();
  Vector phi(system.nc());
  system.constraint(start.q, start.t, phi);
  const double e0 = phi.size() ? phi.lpNorm<Eigen::Infinity>() : 0.0;
  if (!(e0 > 0.0)) throwInvalid("start", "must be off the manifold (|phi(q0)| > 0) to measure how an error evolves");

  std::vector<StabilityCell> cells;
  for (double dt : options.dts) {
    for (double omega : options.omegas) {
      StabilityCell cell;
      cell.dt = dt;
      cell.omega = omega;
      cell.e0 = e0;
      SimulationOptions run;
      run.integrator = options.integrator;
      run.dt = dt;
      run.steps = std::max(options.min_steps, std::lround(options.horizon / dt));
      run.stabilization = Stabilization::fromDampingRatio(options.zeta, omega);
      run.kkt.form = options.form;
      const long late_from = run.steps - run.steps / 10;
      long step = 0;
      bool exceeded = false;
      const Summary summary = simulate(system, start, run, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
        system.constraint(q, t, phi);
        const double e = phi.lpNorm<Eigen::Infinity>();
        if (!(e <= options.blowup_ratio * e0)) exceeded = true;
        if (step >= late_from) cell.late_max = std::max(cell.late_max, e);
        ++step;
      });
      cell.steps = summary.steps;
      if (!summary.ok() || exceeded) {
        cell.behaviour = ErrorBehaviour::BlowUp;
      } else if (cell.late_max > e0) {
        cell.behaviour = ErrorBehaviour::Grows;
      } else if (cell.late_max < options.decay_ratio * e0) {
        cell.behaviour = ErrorBehaviour::Decays;
      } else {
        cell.behaviour = ErrorBehaviour::Bounded;
      }
      cells.push_back(cell);
    }
  }
  return cells;
}

double measuredStabilityLimit(const std::vector<StabilityCell>& cells) {
  double limit = std::numeric_limits<double>::infinity();
  for (const StabilityCell& cell : cells) {
    if (cell.behaviour == ErrorBehaviour::Grows || cell.behaviour == ErrorBehaviour::BlowUp) {
      limit = std::min(limit, cell.dt * cell.omega);
    }
  }
  return limit;
}

}  // namespace kktdae

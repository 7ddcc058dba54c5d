#include "kktdae/experiments/stability_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "error_classification.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {

std::string_view toString(ErrorBehaviour behaviour) {
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
  for (double dt : dts) {
    // Checked as a double: a horizon of 1e300 s would overflow the step count's conversion.
    const double steps = horizon / dt;
    if (!(steps < 9e18)) {
      throwInvalid("horizon", formatDouble(horizon) + " s at dt " + formatDouble(dt) + " s needs " + formatDouble(steps) +
                                  " steps: more than a run can count");
    }
  }
  if (min_steps < 10) throwInvalid("min_steps", "must be >= 10, got " + std::to_string(min_steps));
  requirePositive("blowup_ratio", blowup_ratio);
  requirePositive("decay_ratio", decay_ratio);
  parallel.validate();
}

std::vector<StabilityCell> runStabilityMap(const ConstrainedSystem& system, const State& start,
                                           const StabilityMapOptions& options) {
  options.validate();
  Vector phi(system.nc());
  system.constraint(start.q, start.t, phi);
  const double e0 = phi.size() ? phi.lpNorm<Eigen::Infinity>() : 0.0;
  if (!(e0 > 0.0)) throwInvalid("start", "must be off the manifold (|phi(q0)| > 0) to measure how an error evolves");

  // Each cell is its own run and owns its φ buffer; `system` and `start` are only read.
  const std::size_t n_omegas = options.omegas.size();
  auto runCell = [&](std::size_t index) {
    StabilityCell cell;
    cell.dt = options.dts[index / n_omegas];
    cell.omega = options.omegas[index % n_omegas];
    cell.e0 = e0;
    SimulationOptions run;
    run.integrator = options.integrator;
    run.dt = cell.dt;
    run.steps = std::max(options.min_steps, std::lround(options.horizon / cell.dt));
    run.stabilization = Stabilization::fromDampingRatio(options.zeta, cell.omega);
    run.kkt.form = options.form;
    // The map classifies the error's growth itself; a cell just past the limit grows on purpose
    // and must run its horizon, not stop at the divergence rule's bound.
    run.divergence.enabled = false;
    const long late_from = *run.steps - *run.steps / 10;
    long step = 0;
    bool exceeded = false;
    Vector phi_cell(system.nc());
    const Summary summary = simulate(system, start, run, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
      system.constraint(q, t, phi_cell);
      const double e = phi_cell.lpNorm<Eigen::Infinity>();
      if (!(e <= options.blowup_ratio * e0)) exceeded = true;
      if (step >= late_from) cell.late_max = std::max(cell.late_max, e);
      ++step;
    });
    cell.steps = summary.steps;
    cell.behaviour = detail::classifyError(!summary.ok() || exceeded, cell.late_max, e0, options.decay_ratio);
    return cell;
  };
  return sweep(options.dts.size() * n_omegas, runCell, options.parallel);
}

double measuredStabilityLimit(const std::vector<StabilityCell>& cells) {
  auto stable = [](const StabilityCell& c) {
    return c.behaviour == ErrorBehaviour::Decays || c.behaviour == ErrorBehaviour::Bounded;
  };
  std::vector<double> dts;
  for (const StabilityCell& cell : cells) {
    if (std::find(dts.begin(), dts.end(), cell.dt) == dts.end()) dts.push_back(cell.dt);
  }
  double limit = std::numeric_limits<double>::infinity();
  for (double dt : dts) {
    std::vector<StabilityCell> row;
    for (const StabilityCell& cell : cells) {
      if (cell.dt == dt) row.push_back(cell);
    }
    std::sort(row.begin(), row.end(), [](const StabilityCell& a, const StabilityCell& b) { return a.omega < b.omega; });
    long last_stable = -1;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (stable(row[i])) last_stable = static_cast<long>(i);
    }
    if (last_stable < 0) {
      limit = std::min(limit, row.front().dt * row.front().omega);
    } else if (static_cast<std::size_t>(last_stable) + 1 < row.size()) {
      const StabilityCell& first_unstable = row[static_cast<std::size_t>(last_stable) + 1];
      limit = std::min(limit, first_unstable.dt * first_unstable.omega);
    }
  }
  return limit;
}

}  // namespace kktdae

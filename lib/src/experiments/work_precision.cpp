#include "kktdae/experiments/work_precision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kktdae/core/checks.hpp"
#include "kktdae/metrics/energy_drift.hpp"

namespace kktdae {
namespace {

struct RunOutcome {
  Summary summary;
  Vector final_state;
  double energy_drift = 0.0;
};

long stepsFor(double horizon, double dt, const char* what) {
  const double steps = std::round(horizon / dt);
  if (std::abs(steps * dt - horizon) > 1e-9 * horizon) {
    throwInvalid(what, formatDouble(dt) + " does not divide the horizon " + formatDouble(horizon));
  }
  return static_cast<long>(steps);
}

RunOutcome runOnce(const ConstrainedSystem& system, const State& start, const SimulationOptions& options) {
  RunOutcome outcome;
  EnergyDrift energy(system);
  outcome.summary = simulate(system, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    energy.observe(t, q, v);
    outcome.final_state.resize(2 * q.size());
    outcome.final_state << q, v;
  });
  outcome.energy_drift = energy.maxAbsDrift();
  return outcome;
}

SimulationOptions optionsFor(const WorkPrecisionCase& setting, const WorkPrecisionOptions& options) {
  SimulationOptions run;
  run.integrator = setting.integrator;
  run.stabilization = options.stabilization;
  run.kkt = options.kkt;
  run.generalized_alpha = options.generalized_alpha;
  run.interrupt = options.interrupt;
  run.events = options.events;
  for (Event& event : run.events) event.action = EventAction::Record;  // every run reaches T
  if (isAdaptive(setting.integrator)) {
    run.dt = options.output_dt;
    run.steps = stepsFor(options.horizon, options.output_dt, "output_dt");
    run.adaptive.rtol = setting.rtol;
    run.adaptive.atol = options.atol_ratio * setting.rtol;
  } else {
    run.dt = setting.dt;
    run.steps = stepsFor(options.horizon, setting.dt, "dt");
    run.observe_every = std::max(1L, *run.steps / 200);  // the final state is always observed
  }
  return run;
}

/// max |t − t_ref| over the fired events, matched by name and order; NaN when none were asked for
/// or the counts differ.
double eventTimeError(const std::vector<FiredEvent>& run, const std::vector<FiredEvent>& reference, bool asked) {
  if (!asked || run.size() != reference.size()) return std::numeric_limits<double>::quiet_NaN();
  double worst = 0.0;
  for (const FiredEvent& fired : run) {
    // The i-th firing of this event in the run against its i-th in the reference.
    long nth = 0;
    for (const FiredEvent& earlier : run) {
      if (&earlier == &fired) break;
      if (earlier.event == fired.event) ++nth;
    }
    const FiredEvent* match = nullptr;
    for (const FiredEvent& candidate : reference) {
      if (candidate.event == fired.event && nth-- == 0) {
        match = &candidate;
        break;
      }
    }
    if (match == nullptr) return std::numeric_limits<double>::quiet_NaN();
    worst = std::max(worst, std::abs(fired.time - match->time));
  }
  return worst;
}

}  // namespace

void WorkPrecisionOptions::validate() const {
  requirePositive("horizon", horizon);
  requirePositive("output_dt", output_dt);
  requirePositive("atol_ratio", atol_ratio);
  requirePositive("reference_rtol", reference_rtol);
  requirePositive("reference_rk4_dt", reference_rk4_dt);
  if (timing_repeats < 1) throwInvalid("timing_repeats", "must be >= 1, got " + std::to_string(timing_repeats));
  stabilization.validate();
  kkt.validate();
  generalized_alpha.validate();
  parallel.validate();
  validateEvents(events);
}

WorkPrecisionReport runWorkPrecision(const ConstrainedSystem& system, const State& start,
                                     const std::vector<WorkPrecisionCase>& cases,
                                     const WorkPrecisionOptions& options) {
  options.validate();
  for (const WorkPrecisionCase& setting : cases) optionsFor(setting, options).validate();
  WorkPrecisionReport report;

  // The reference and its two RK4 cross-checks are independent runs.
  const std::vector<SimulationOptions> reference_runs = {
      optionsFor({Integrator::IdaGgl, 0.0, options.reference_rtol}, options),
      optionsFor({Integrator::Rk4, options.reference_rk4_dt, 0.0}, options),
      optionsFor({Integrator::Rk4, options.reference_rk4_dt / 2, 0.0}, options)};
  const std::vector<RunOutcome> references = sweep(
      reference_runs.size(), [&](std::size_t i) { return runOnce(system, start, reference_runs[i]); }, options.parallel);
  const RunOutcome& reference = references[0];
  report.reference_summary = reference.summary;
  if (!reference.summary.ok()) {
    throw std::invalid_argument("reference run (ida_ggl, rtol " + formatDouble(options.reference_rtol) +
                                ") failed: " + reference.summary.message);
  }
  report.reference = reference.final_state;
  const RunOutcome& coarse = references[1];
  const RunOutcome& fine = references[2];
  if (coarse.summary.ok() && fine.summary.ok()) {
    const Vector richardson = fine.final_state + (fine.final_state - coarse.final_state) / 15.0;
    report.richardson_estimate = (fine.final_state - coarse.final_state).lpNorm<Eigen::Infinity>() / 15.0;
    report.reference_cross_check = (richardson - report.reference).lpNorm<Eigen::Infinity>();
  } else {
    report.reference_cross_check = std::numeric_limits<double>::quiet_NaN();
    report.richardson_estimate = std::numeric_limits<double>::quiet_NaN();
  }

  auto runCase = [&](std::size_t index) {
    const WorkPrecisionCase& setting = cases[index];
    const SimulationOptions run = optionsFor(setting, options);
    WorkPrecisionResult result;
    result.setting = setting;
    std::vector<double> walls;
    for (int repeat = 0; repeat < options.timing_repeats; ++repeat) {
      const RunOutcome outcome = runOnce(system, start, run);
      walls.push_back(outcome.summary.wall_seconds);
      if (repeat > 0) continue;
      result.summary = outcome.summary;
      result.max_phi_inf = outcome.summary.max_phi_inf;
      result.energy_drift = outcome.energy_drift;
      const bool complete = outcome.summary.ok() && outcome.final_state.size() == report.reference.size();
      result.error = complete ? (outcome.final_state - report.reference).lpNorm<Eigen::Infinity>()
                              : std::numeric_limits<double>::quiet_NaN();
      result.event_time_error = eventTimeError(outcome.summary.events, report.reference_summary.events,
                                               !options.events.empty());
      if (!outcome.summary.ok()) break;  // a failed run is not worth timing again
    }
    std::nth_element(walls.begin(), walls.begin() + static_cast<long>(walls.size() / 2), walls.end());
    result.wall_seconds = walls[walls.size() / 2];
    return result;
  };
  report.results = sweep(cases.size(), runCase, options.parallel);
  return report;
}

}  // namespace kktdae

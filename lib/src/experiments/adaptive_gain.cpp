#include "kktdae/experiments/adaptive_gain.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

#include "kktdae/core/checks.hpp"
#include "kktdae/metrics/significant_digits.hpp"

namespace kktdae {
namespace {

/// One output interval ending exactly at t_end: the end state is a true step of the solver.
SimulationOptions endStateOptions(Integrator integrator, double t0, double t_end, double tolerance, long max_steps) {
  SimulationOptions sim;
  sim.integrator = integrator;
  sim.dt = t_end - t0;
  sim.steps = 1;
  sim.adaptive.rtol = tolerance;
  sim.adaptive.atol = tolerance;
  sim.adaptive.max_steps = max_steps;
  sim.adaptive.stop_at_outputs = true;
  // The work measure is Summary::rhs_evaluations, which holds a Jacobian's cost only when the
  // Jacobian is a difference quotient of f or F (an analytic one counts model calls instead, in
  // newton_model_evaluations): keep the matrix whose whole cost `work` sees, as §9's table did.
  sim.adaptive.newton_matrix = NewtonMatrix::DifferenceQuotient;
  return sim;
}

struct EndState {
  Summary summary;
  Vector q;
  double t = 0.0;
};

EndState runToEnd(const ConstrainedSystem& system, const State& start, const SimulationOptions& sim) {
  EndState end;
  end.t = start.t;
  end.summary = simulate(system, start, sim, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
    end.t = t;
    end.q = q;
  });
  return end;
}

void validateProblem(const AdaptiveGainProblem& problem) {
  if (problem.system == nullptr) throwInvalid("system", "is null");
  if (!(problem.t_end > problem.start.t)) {
    throwInvalid("t_end", formatDouble(problem.t_end) + " must exceed the start time " + formatDouble(problem.start.t));
  }
  if (problem.reference_q.size() < 1 || problem.reference_q.size() > problem.start.q.size()) {
    throwInvalid("reference_q", "size " + std::to_string(problem.reference_q.size()) + " must be in [1, nq = " +
                                    std::to_string(problem.start.q.size()) + "]");
  }
  if (!(problem.reference_q.array() != 0.0).any()) throwInvalid("reference_q", "has no non-zero entry to score");
}

/// scd over the reference's non-zero entries: an exactly zero one is a coordinate the model holds
/// at zero (a planar chain's z), whose relative error is undefined.
double scoredDigits(const Vector& q, const Vector& reference) {
  std::vector<Eigen::Index> kept;
  for (Eigen::Index i = 0; i < reference.size(); ++i) {
    if (reference[i] != 0.0) kept.push_back(i);
  }
  Vector y(static_cast<Eigen::Index>(kept.size())), ref(static_cast<Eigen::Index>(kept.size()));
  for (std::size_t j = 0; j < kept.size(); ++j) {
    y[static_cast<Eigen::Index>(j)] = q[kept[j]];
    ref[static_cast<Eigen::Index>(j)] = reference[kept[j]];
  }
  return significantCorrectDigits(y, ref);
}

}  // namespace

Vector adaptiveGainReference(const ConstrainedSystem& system, const State& start, double t_end, double rtol) {
  requirePositive("rtol", rtol);
  SimulationOptions sim = endStateOptions(Integrator::IdaGgl, start.t, t_end, rtol, 10000000);
  const EndState end = runToEnd(system, start, sim);
  if (!end.summary.ok()) throwInvalid("reference", "ida_ggl failed: " + end.summary.message);
  return end.q;
}

MotionTimeScale measureMotionTimeScale(const ConstrainedSystem& system, const State& start, double t_end,
                                       Integrator integrator, double tolerance, long outputs) {
  if (!isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not adaptive");
  requirePositive("tolerance", tolerance);
  if (outputs < 4) throwInvalid("outputs", "must be >= 4, got " + std::to_string(outputs));
  if (!(t_end > start.t)) throwInvalid("t_end", formatDouble(t_end) + " must exceed " + formatDouble(start.t));
  SimulationOptions sim;
  sim.integrator = integrator;
  sim.dt = (t_end - start.t) / static_cast<double>(outputs);
  sim.end_time = t_end;
  sim.adaptive.rtol = tolerance;
  sim.adaptive.atol = tolerance;
  std::vector<Vector> qs, vs;
  MotionTimeScale scale;
  scale.summary = simulate(system, start, sim, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    qs.emplace_back(q);
    vs.emplace_back(v);
  });
  if (scale.summary.steps > 0) scale.mean_step = (scale.summary.t_final - start.t) / static_cast<double>(scale.summary.steps);
  double velocity = 0.0, acceleration = 0.0;
  for (std::size_t k = 1; k + 1 < vs.size(); ++k) {
    const Vector a = (vs[k + 1] - vs[k - 1]) / (2.0 * sim.dt);
    velocity += 2.0 * system.kineticEnergy(qs[k], vs[k]);
    acceleration += 2.0 * system.kineticEnergy(qs[k], a);
  }
  if (!(velocity > 0.0)) throwInvalid("start", "the motion is at rest at every output: no time scale to measure");
  scale.motion_rate = std::sqrt(acceleration / velocity);
  return scale;
}

void AdaptiveGainOptions::validate() const {
  if (integrators.empty()) throwInvalid("integrators", "is empty");
  for (Integrator integrator : integrators) {
    if (!isAdaptive(integrator) || integrator == Integrator::IdaGgl) {
      throwInvalid("integrators", std::string(toString(integrator)) +
                                      " has no Baumgarte gain to scan (adaptive integrators with Baumgarte terms only)");
    }
  }
  if (tolerances.empty()) throwInvalid("tolerances", "is empty");
  for (double tolerance : tolerances) requirePositive("tolerances", tolerance);
  if (omegas.empty()) throwInvalid("omegas", "is empty");
  for (double omega : omegas) requirePositive("omegas", omega);
  for (std::size_t i = 1; i < omegas.size(); ++i) {
    if (!(omegas[i] > omegas[i - 1])) throwInvalid("omegas", "must be ascending (the smoothing averages neighbours)");
  }
  requireNonNegative("zeta", zeta);
  if (max_steps < 1) throwInvalid("max_steps", "must be >= 1, got " + std::to_string(max_steps));
  kkt.validate();
  parallel.validate();
}

AdaptiveGainScan scanAdaptiveGains(const AdaptiveGainProblem& problem, const AdaptiveGainOptions& options) {
  validateProblem(problem);
  options.validate();
  const std::size_t per_scan = options.omegas.size() + 1;
  const std::size_t scans = options.integrators.size() * options.tolerances.size();
  const Eigen::Index k = problem.reference_q.size();

  AdaptiveGainScan scan;
  scan.runs = sweep(
      scans * per_scan,
      [&](std::size_t i) {
        AdaptiveGainRun run;
        run.integrator = options.integrators[i / per_scan / options.tolerances.size()];
        run.tolerance = options.tolerances[(i / per_scan) % options.tolerances.size()];
        run.omega = i % per_scan == 0 ? 0.0 : options.omegas[i % per_scan - 1];
        SimulationOptions sim =
            endStateOptions(run.integrator, problem.start.t, problem.t_end, run.tolerance, options.max_steps);
        sim.kkt = options.kkt;
        sim.stabilization = run.omega > 0.0 ? Stabilization::fromDampingRatio(options.zeta, run.omega)
                                            : Stabilization::none();
        const EndState end = runToEnd(*problem.system, problem.start, sim);
        run.summary = end.summary;
        run.work = end.summary.rhs_evaluations;
        run.reached_end = end.summary.ok() && end.q.size() == problem.start.q.size() && end.q.allFinite() &&
                          std::abs(end.t - problem.t_end) <= 1e-12 * std::max(1.0, std::abs(problem.t_end));
        run.scd = run.reached_end ? scoredDigits(end.q.head(k), problem.reference_q)
                                  : std::numeric_limits<double>::quiet_NaN();
        run.efficiency = run.reached_end ? run.scd - std::log10(static_cast<double>(std::max(1L, run.work)))
                                         : -std::numeric_limits<double>::infinity();
        spdlog::debug("adaptive gain {} {} tol {:g} omega {:g}: scd {:.3f} work {}", problem.name,
                      toString(run.integrator), run.tolerance, run.omega, run.scd, run.work);
        return run;
      },
      options.parallel);

  for (std::size_t s = 0; s < scans; ++s) {
    AdaptiveGainBest best;
    const AdaptiveGainRun* first = &scan.runs[s * per_scan];
    best.integrator = first->integrator;
    best.tolerance = first->tolerance;
    best.unstabilized = *first;
    best.unstabilized_mean_step =
        first->summary.steps > 0 ? (problem.t_end - problem.start.t) / static_cast<double>(first->summary.steps) : 0.0;
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 1; j < per_scan; ++j) {
      const AdaptiveGainRun& run = first[j];
      if (run.efficiency > top || (run.efficiency == top && run.omega < best.best_omega)) {
        top = run.efficiency;
        best.best_omega = run.omega;
        best.best = run;
      }
    }
    best.near_best_low = std::numeric_limits<double>::infinity();
    for (std::size_t j = 1; j < per_scan; ++j) {
      const AdaptiveGainRun& run = first[j];
      if (std::isfinite(top) && run.efficiency >= top - 0.1) {
        best.near_best_low = std::min(best.near_best_low, run.omega);
        best.near_best_high = std::max(best.near_best_high, run.omega);
      }
    }
    if (!std::isfinite(top)) best.near_best_low = 0.0;
    const std::size_t n = per_scan - 1;
    best.smoothed_best_efficiency = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t lo = j == 0 ? 0 : j - 1, hi = std::min(n - 1, j + 1);
      double sum = 0.0;
      for (std::size_t i = lo; i <= hi; ++i) sum += first[1 + i].efficiency;
      const double mean = sum / static_cast<double>(hi - lo + 1);
      best.smoothed_efficiency.push_back(mean);
      if (mean > best.smoothed_best_efficiency) {
        best.smoothed_best_efficiency = mean;
        best.smoothed_best_omega = first[1 + j].omega;
      }
    }
    scan.best.push_back(best);
  }
  return scan;
}

}  // namespace kktdae

#include "kktdae/experiments/adaptive_gain.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>
#include <utility>

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
  return sim;
}

/// `outputs` equally spaced interpolated outputs: the solver's own step sequence, as a user's
/// run with an output grid has it (stopping at each would shorten the steps the score ranks).
SimulationOptions pathOptions(Integrator integrator, double t0, double t_end, long outputs, double tolerance,
                              long max_steps) {
  SimulationOptions sim;
  sim.integrator = integrator;
  sim.dt = (t_end - t0) / static_cast<double>(outputs);
  sim.end_time = t_end;
  sim.adaptive.rtol = tolerance;
  sim.adaptive.atol = tolerance;
  sim.adaptive.max_steps = max_steps;
  return sim;
}

struct Path {
  Summary summary;
  std::vector<Vector> q;  ///< after the start, first `components` coordinates
  double t = 0.0;
};

Path runPath(const ConstrainedSystem& system, const State& start, const SimulationOptions& sim,
             Eigen::Index components) {
  Path path;
  path.t = start.t;
  bool first = true;
  path.summary = simulate(system, start, sim, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
    if (first) {  // the initial state
      first = false;
      return;
    }
    path.t = t;
    path.q.emplace_back(q.head(components));
  });
  return path;
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
  if (problem.reference_path.empty()) throwInvalid("reference_path", "is empty");
  const Eigen::Index k = problem.reference_path[0].size();
  if (k < 1 || k > problem.start.q.size()) {
    throwInvalid("reference_path", "entry size " + std::to_string(k) + " must be in [1, nq = " +
                                       std::to_string(problem.start.q.size()) + "]");
  }
  bool nonzero = false;
  for (const Vector& r : problem.reference_path) {
    if (r.size() != k) throwInvalid("reference_path", "entries differ in size");
    nonzero = nonzero || (r.array() != 0.0).any();
  }
  if (!nonzero) throwInvalid("reference_path", "has no non-zero entry to score");
}

/// The grid index range [lo, hi] of the averaging window around j.
std::pair<std::size_t, std::size_t> window(std::size_t j, std::size_t n, std::size_t half) {
  return {j >= half ? j - half : 0, std::min(n - 1, j + half)};
}

}  // namespace

double pathDigits(const std::vector<Vector>& path, const std::vector<Vector>& reference) {
  if (path.size() != reference.size() || reference.empty()) {
    throwInvalid("path", "has " + std::to_string(path.size()) + " outputs, the reference " +
                             std::to_string(reference.size()) + " (both must be equal and > 0)");
  }
  const Eigen::Index k = reference[0].size();
  Vector scale = Vector::Zero(k);
  for (std::size_t j = 0; j < reference.size(); ++j) {
    if (reference[j].size() != k || path[j].size() != k) throwInvalid("path", "entries differ in size");
    scale = scale.cwiseMax(reference[j].cwiseAbs());
  }
  double sum = 0.0;
  for (std::size_t j = 0; j < reference.size(); ++j) {
    double worst = 0.0;
    for (Eigen::Index i = 0; i < k; ++i) {
      if (scale[i] > 0.0) worst = std::max(worst, std::abs(path[j][i] - reference[j][i]) / scale[i]);
    }
    sum += worst * worst;
  }
  const double rms = std::sqrt(sum / static_cast<double>(reference.size()));
  // Exact agreement is capped at 16 digits, as significantCorrectDigits does for doubles.
  return rms > 0.0 ? std::min(16.0, -std::log10(rms)) : 16.0;
}

std::vector<Vector> adaptiveGainReferencePath(const ConstrainedSystem& system, const State& start, double t_end,
                                              long outputs, Eigen::Index components, double rtol) {
  requirePositive("rtol", rtol);
  if (outputs < 1) throwInvalid("outputs", "must be >= 1, got " + std::to_string(outputs));
  if (!(t_end > start.t)) throwInvalid("t_end", formatDouble(t_end) + " must exceed " + formatDouble(start.t));
  if (components < 0 || components > start.q.size()) {
    throwInvalid("components", std::to_string(components) + " must be in [0, nq]");
  }
  const SimulationOptions sim = pathOptions(Integrator::IdaGgl, start.t, t_end, outputs, rtol, 10000000);
  Path path = runPath(system, start, sim, components == 0 ? start.q.size() : components);
  if (!path.summary.ok()) throwInvalid("reference", "ida_ggl failed: " + path.summary.message);
  if (static_cast<long>(path.q.size()) != outputs) {
    throwInvalid("reference", "ida_ggl gave " + std::to_string(path.q.size()) + " outputs, expected " +
                                  std::to_string(outputs));
  }
  return path.q;
}

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
  requireNonNegative("extend_max_omega", extend_max_omega);
  if (extend_max_omega > 0.0 && omegas.size() < 2) {
    throwInvalid("omegas", "needs at least two gains to extend the grid by its own ratio (extend_max_omega > 0)");
  }
  if (!(extend_work_factor > 1.0)) {
    throwInvalid("extend_work_factor", "must be > 1, got " + formatDouble(extend_work_factor));
  }
  requireNonNegative("zeta", zeta);
  if (max_steps < 1) throwInvalid("max_steps", "must be >= 1, got " + std::to_string(max_steps));
  if (smoothing_half_width < 0) {
    throwInvalid("smoothing_half_width", "must be >= 0, got " + std::to_string(smoothing_half_width));
  }
  requirePositive("band_tolerance", band_tolerance);
  kkt.validate();
  parallel.validate();
}

namespace {

/// What every run of one scan shares: the problem's scored coordinates and end state.
struct ScanContext {
  const AdaptiveGainProblem* problem = nullptr;
  const AdaptiveGainOptions* options = nullptr;
  Eigen::Index components = 0;
  long outputs = 0;
  Vector end_reference;
  std::vector<Eigen::Index> end_kept;  ///< end-state coordinates that are not 0
};

AdaptiveGainRun runOne(const ScanContext& c, Integrator integrator, double tolerance, double omega) {
  const AdaptiveGainProblem& problem = *c.problem;
  const AdaptiveGainOptions& options = *c.options;
  AdaptiveGainRun run;
  run.integrator = integrator;
  run.tolerance = tolerance;
  run.omega = omega;
  SimulationOptions sim = pathOptions(run.integrator, problem.start.t, problem.t_end, c.outputs, run.tolerance,
                                      options.max_steps);
  sim.kkt = options.kkt;
  sim.interrupt = options.interrupt;
  sim.stabilization =
      run.omega > 0.0 ? Stabilization::fromDampingRatio(options.zeta, run.omega) : Stabilization::none();
  const Path path = runPath(*problem.system, problem.start, sim, c.components);
  run.summary = path.summary;
  run.work = path.summary.rhs_evaluations + path.summary.newton_model_evaluations;
  bool finite = static_cast<long>(path.q.size()) == c.outputs;
  for (const Vector& q : path.q) finite = finite && q.allFinite();
  run.reached_end = path.summary.ok() && finite &&
                    std::abs(path.t - problem.t_end) <= 1e-12 * std::max(1.0, std::abs(problem.t_end));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  run.scd = run.reached_end ? pathDigits(path.q, problem.reference_path) : nan;
  if (run.reached_end && !c.end_kept.empty()) {
    Vector y(static_cast<Eigen::Index>(c.end_kept.size())), ref(y.size());
    for (std::size_t j = 0; j < c.end_kept.size(); ++j) {
      y[static_cast<Eigen::Index>(j)] = path.q.back()[c.end_kept[j]];
      ref[static_cast<Eigen::Index>(j)] = c.end_reference[c.end_kept[j]];
    }
    run.end_scd = significantCorrectDigits(y, ref);
  } else {
    run.end_scd = nan;
  }
  run.efficiency = run.reached_end ? run.scd - std::log10(static_cast<double>(std::max(1L, run.work)))
                                   : -std::numeric_limits<double>::infinity();
  spdlog::debug("adaptive gain {} {} tol {:g} omega {:g}: scd {:.3f} work {}", problem.name, toString(run.integrator),
                run.tolerance, run.omega, run.scd, run.work);
  return run;
}

/// Whether a scan's grid goes on above its top: the top run reached the end at less than
/// extend_work_factor times the unstabilized run's work, and the next point is within the limit.
bool wantsExtension(const std::vector<AdaptiveGainRun>& runs, double next, const AdaptiveGainOptions& options) {
  const AdaptiveGainRun& top = runs.back();
  return next <= options.extend_max_omega * (1.0 + 1e-12) && top.reached_end &&
         static_cast<double>(top.work) < options.extend_work_factor * static_cast<double>(runs.front().work);
}

/// The best of one scan: `runs` holds ω = 0 first, then the grid's gains in ascending order.
AdaptiveGainBest bestOf(const AdaptiveGainProblem& problem, const AdaptiveGainOptions& options,
                        const std::vector<AdaptiveGainRun>& runs) {
  AdaptiveGainBest best;
  const AdaptiveGainRun& first = runs.front();
  best.integrator = first.integrator;
  best.tolerance = first.tolerance;
  best.unstabilized = first;
  best.unstabilized_mean_step =
      first.summary.steps > 0 ? (problem.t_end - problem.start.t) / static_cast<double>(first.summary.steps) : 0.0;
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 1; j < runs.size(); ++j) {
    const AdaptiveGainRun& run = runs[j];
    if (run.efficiency > top || (run.efficiency == top && run.omega < best.best_omega)) {
      top = run.efficiency;
      best.best_omega = run.omega;
      best.best = run;
    }
  }
  best.near_best_low = std::numeric_limits<double>::infinity();
  for (std::size_t j = 1; j < runs.size(); ++j) {
    const AdaptiveGainRun& run = runs[j];
    if (std::isfinite(top) && run.efficiency >= top - 0.1) {
      best.near_best_low = std::min(best.near_best_low, run.omega);
      best.near_best_high = std::max(best.near_best_high, run.omega);
    }
  }
  if (!std::isfinite(top)) best.near_best_low = 0.0;
  const std::size_t n = runs.size() - 1;
  for (std::size_t j = 1; j < runs.size(); ++j) best.omegas.push_back(runs[j].omega);
  best.smoothed_best_efficiency = -std::numeric_limits<double>::infinity();
  std::size_t top_index = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const auto [lo, hi] = window(j, n, static_cast<std::size_t>(options.smoothing_half_width));
    double sum = 0.0;
    for (std::size_t i = lo; i <= hi; ++i) sum += runs[1 + i].efficiency;
    const double mean = sum / static_cast<double>(hi - lo + 1);
    best.smoothed_efficiency.push_back(mean);
    if (mean > best.smoothed_best_efficiency) {
      best.smoothed_best_efficiency = mean;
      best.smoothed_best_omega = runs[1 + j].omega;
      top_index = j;
    }
  }
  if (std::isfinite(best.smoothed_best_efficiency)) {
    const double floor = best.smoothed_best_efficiency - options.band_tolerance;
    std::size_t lo = top_index, hi = top_index;
    while (lo > 0 && best.smoothed_efficiency[lo - 1] >= floor) --lo;
    while (hi + 1 < n && best.smoothed_efficiency[hi + 1] >= floor) ++hi;
    best.band_low = best.omegas[lo];
    best.band_high = best.omegas[hi];
  }
  return best;
}

}  // namespace

AdaptiveGainScan scanAdaptiveGains(const AdaptiveGainProblem& problem, const AdaptiveGainOptions& options) {
  validateProblem(problem);
  options.validate();
  const std::size_t per_scan = options.omegas.size() + 1;
  const std::size_t scans = options.integrators.size() * options.tolerances.size();
  ScanContext context;
  context.problem = &problem;
  context.options = &options;
  context.components = problem.reference_path[0].size();
  context.outputs = static_cast<long>(problem.reference_path.size());
  context.end_reference = problem.reference_path.back();
  for (Eigen::Index i = 0; i < context.components; ++i) {
    if (context.end_reference[i] != 0.0) context.end_kept.push_back(i);
  }
  auto integratorOf = [&](std::size_t s) { return options.integrators[s / options.tolerances.size()]; };
  auto toleranceOf = [&](std::size_t s) { return options.tolerances[s % options.tolerances.size()]; };

  const std::vector<AdaptiveGainRun> grid_runs = sweep(
      scans * per_scan,
      [&](std::size_t i) {
        const std::size_t s = i / per_scan;
        return runOne(context, integratorOf(s), toleranceOf(s), i % per_scan == 0 ? 0.0 : options.omegas[i % per_scan - 1]);
      },
      options.parallel);
  std::vector<std::vector<AdaptiveGainRun>> per(scans);
  for (std::size_t s = 0; s < scans; ++s) {
    per[s].assign(grid_runs.begin() + static_cast<std::ptrdiff_t>(s * per_scan),
                  grid_runs.begin() + static_cast<std::ptrdiff_t>((s + 1) * per_scan));
  }

  // The grid goes on above its top, two of its own steps per round (a fixed batch, so the
  // result does not depend on the thread count), until the work passes the factor: where the
  // best lies at the top, the claim is then measured rather than read at the grid's end.
  if (options.extend_max_omega > 0.0) {
    const double ratio = options.omegas.back() / options.omegas[options.omegas.size() - 2];
    constexpr int kBatch = 2;
    while (true) {
      std::vector<std::pair<std::size_t, double>> jobs;
      for (std::size_t s = 0; s < scans; ++s) {
        double next = per[s].back().omega * ratio;
        if (!wantsExtension(per[s], next, options)) continue;
        for (int b = 0; b < kBatch && next <= options.extend_max_omega * (1.0 + 1e-12); ++b, next *= ratio) {
          jobs.emplace_back(s, next);
        }
      }
      if (jobs.empty()) break;
      const std::vector<AdaptiveGainRun> extra = sweep(
          jobs.size(),
          [&](std::size_t j) { return runOne(context, integratorOf(jobs[j].first), toleranceOf(jobs[j].first), jobs[j].second); },
          options.parallel);
      for (std::size_t j = 0; j < jobs.size(); ++j) per[jobs[j].first].push_back(extra[j]);
    }
  }

  AdaptiveGainScan scan;
  for (std::size_t s = 0; s < scans; ++s) {
    AdaptiveGainBest best = bestOf(problem, options, per[s]);
    best.first_run = scan.runs.size();
    scan.runs.insert(scan.runs.end(), per[s].begin(), per[s].end());
    scan.best.push_back(std::move(best));
  }
  return scan;
}

AdaptiveGainPlacement placeInBand(const AdaptiveGainBest& best, double omega) {
  requirePositive("omega", omega);
  if (best.omegas.empty() || best.omegas.size() != best.smoothed_efficiency.size()) {
    throwInvalid("best", "has no efficiency curve to place omega on");
  }
  AdaptiveGainPlacement place;
  place.ratio = omega / best.smoothed_best_omega;
  if (omega < best.band_low) {
    place.side = -1;
    place.outside_factor = best.band_low / omega;
  } else if (omega > best.band_high) {
    place.side = 1;
    place.outside_factor = omega / best.band_high;
  }
  const std::vector<double>& w = best.omegas;
  const std::vector<double>& e = best.smoothed_efficiency;
  double at = e.front();
  if (omega >= w.back()) {
    at = e.back();
  } else if (omega > w.front()) {
    std::size_t j = 1;
    while (w[j] < omega) ++j;
    const double s = std::log(omega / w[j - 1]) / std::log(w[j] / w[j - 1]);
    at = std::isfinite(e[j - 1]) && std::isfinite(e[j]) ? (1.0 - s) * e[j - 1] + s * e[j] : std::min(e[j - 1], e[j]);
  }
  place.loss = best.smoothed_best_efficiency - at;
  return place;
}

}  // namespace kktdae

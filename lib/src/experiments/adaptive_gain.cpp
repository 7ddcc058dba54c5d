#include "kktdae/experiments/adaptive_gain.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <iterator>
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
  AdaptiveGainReferenceRun run = runAdaptiveGainReference(system, start, t_end, outputs, components, rtol);
  if (!run.summary.ok()) throwInvalid("reference", "ida_ggl failed: " + run.summary.message);
  if (static_cast<long>(run.path.size()) != outputs) {
    throwInvalid("reference", "ida_ggl gave " + std::to_string(run.path.size()) + " outputs, expected " +
                                  std::to_string(outputs));
  }
  return std::move(run.path);
}

AdaptiveGainReferenceRun runAdaptiveGainReference(const ConstrainedSystem& system, const State& start, double t_end,
                                                  long outputs, Eigen::Index components, double rtol) {
  requirePositive("rtol", rtol);
  if (outputs < 1) throwInvalid("outputs", "must be >= 1, got " + std::to_string(outputs));
  if (!(t_end > start.t)) throwInvalid("t_end", formatDouble(t_end) + " must exceed " + formatDouble(start.t));
  if (components < 0 || components > start.q.size()) {
    throwInvalid("components", std::to_string(components) + " must be in [0, nq]");
  }
  const SimulationOptions sim = pathOptions(Integrator::IdaGgl, start.t, t_end, outputs, rtol, 10000000);
  Path path = runPath(system, start, sim, components == 0 ? start.q.size() : components);
  if (!path.summary.ok() || static_cast<long>(path.q.size()) != outputs) path.q.clear();
  return {std::move(path.q), path.summary};
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
  if (ensemble_size < 1 || ensemble_size % 2 == 0) {
    throwInvalid("ensemble_size", "must be odd and >= 1 (centred on the nominal tolerance), got " +
                                      std::to_string(ensemble_size));
  }
  requirePositive("ensemble_step", ensemble_step);
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

AdaptiveGainRun runMember(const ScanContext& c, Integrator integrator, double tolerance, double omega) {
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

/// The tolerance of ensemble member `member` (0 … n−1) around `tolerance`: k = member − (n−1)/2,
/// so the centre member runs at the nominal tolerance itself, bit for bit.
double memberTolerance(const AdaptiveGainOptions& options, double tolerance, int member) {
  const int k = member - (options.ensemble_size - 1) / 2;
  return k == 0 ? tolerance : tolerance * std::pow(10.0, options.ensemble_step * k);
}

/// One grid point from its members (in ensemble order): the centre's run, scored by the mean.
AdaptiveGainRun combineMembers(std::vector<AdaptiveGainRun> members, double tolerance) {
  const std::size_t n = members.size();
  std::vector<double> efficiency;
  std::vector<long> work;
  bool all = true;
  double sum = 0.0;
  for (const AdaptiveGainRun& member : members) {
    efficiency.push_back(member.efficiency);
    work.push_back(member.work);
    all = all && member.reached_end;
    sum += member.efficiency;
  }
  AdaptiveGainRun point = std::move(members[n / 2]);
  point.tolerance = tolerance;
  point.member_efficiency = std::move(efficiency);
  point.member_work = std::move(work);
  point.reached_end = all;
  point.efficiency_spread = 0.0;
  if (!all) {
    point.efficiency = -std::numeric_limits<double>::infinity();
    return point;
  }
  const double mean = sum / static_cast<double>(n);
  point.efficiency = mean;
  if (n > 1) {
    double squares = 0.0;
    for (double e : point.member_efficiency) squares += (e - mean) * (e - mean);
    point.efficiency_spread = std::sqrt(squares / static_cast<double>(n - 1));
  }
  return point;
}

/// Runs the grid points `points` (scan index, ω) with every ensemble member, in parallel over all
/// members, and combines each point's members.
template <class IntegratorOf, class ToleranceOf>
std::vector<AdaptiveGainRun> runPoints(const ScanContext& c, const std::vector<std::pair<std::size_t, double>>& points,
                                       IntegratorOf integratorOf, ToleranceOf toleranceOf) {
  const AdaptiveGainOptions& options = *c.options;
  const auto m = static_cast<std::size_t>(options.ensemble_size);
  std::vector<AdaptiveGainRun> members = sweep(
      points.size() * m,
      [&](std::size_t i) {
        const auto& [s, omega] = points[i / m];
        return runMember(c, integratorOf(s), memberTolerance(options, toleranceOf(s), static_cast<int>(i % m)), omega);
      },
      options.parallel);
  std::vector<AdaptiveGainRun> combined;
  combined.reserve(points.size());
  for (std::size_t p = 0; p < points.size(); ++p) {
    std::vector<AdaptiveGainRun> mine(std::make_move_iterator(members.begin() + static_cast<std::ptrdiff_t>(p * m)),
                                      std::make_move_iterator(members.begin() + static_cast<std::ptrdiff_t>((p + 1) * m)));
    combined.push_back(combineMembers(std::move(mine), toleranceOf(points[p].first)));
  }
  return combined;
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
    double sum = 0.0, variance = 0.0;
    for (std::size_t i = lo; i <= hi; ++i) {
      sum += runs[1 + i].efficiency;
      variance += runs[1 + i].efficiency_spread * runs[1 + i].efficiency_spread / static_cast<double>(options.ensemble_size);
    }
    const double count = static_cast<double>(hi - lo + 1);
    const double mean = sum / count;
    best.smoothed_efficiency.push_back(mean);
    best.smoothed_error.push_back(std::sqrt(variance) / count);
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
    double scatter = 0.0, spread = 0.0;
    std::size_t counted = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const AdaptiveGainRun& run = runs[1 + j];
      if (!(best.smoothed_efficiency[j] >= best.smoothed_best_efficiency - kAdaptiveGainTopWidth) ||
          !std::isfinite(run.efficiency)) {
        continue;
      }
      scatter += (run.efficiency - best.smoothed_efficiency[j]) * (run.efficiency - best.smoothed_efficiency[j]);
      spread += run.efficiency_spread * run.efficiency_spread;
      ++counted;
    }
    if (counted > 0) {
      best.scatter = std::sqrt(scatter / static_cast<double>(counted));
      best.ensemble_spread = std::sqrt(spread / static_cast<double>(counted));
    }
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

  std::vector<std::pair<std::size_t, double>> points;
  for (std::size_t s = 0; s < scans; ++s) {
    points.emplace_back(s, 0.0);
    for (double omega : options.omegas) points.emplace_back(s, omega);
  }
  const std::vector<AdaptiveGainRun> grid_runs = runPoints(context, points, integratorOf, toleranceOf);
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
      const std::vector<AdaptiveGainRun> extra = runPoints(context, jobs, integratorOf, toleranceOf);
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
  const bool errors = best.smoothed_error.size() == e.size();
  auto error = [&](std::size_t j) { return errors ? best.smoothed_error[j] : 0.0; };
  double at = e.front(), at_error = error(0);
  if (omega >= w.back()) {
    at = e.back();
    at_error = error(w.size() - 1);
  } else if (omega > w.front()) {
    std::size_t j = 1;
    while (w[j] < omega) ++j;
    const double s = std::log(omega / w[j - 1]) / std::log(w[j] / w[j - 1]);
    at = std::isfinite(e[j - 1]) && std::isfinite(e[j]) ? (1.0 - s) * e[j - 1] + s * e[j] : std::min(e[j - 1], e[j]);
    at_error = (1.0 - s) * error(j - 1) + s * error(j);
  }
  place.loss = best.smoothed_best_efficiency - at;
  double best_error = 0.0;
  for (std::size_t j = 0; j < w.size(); ++j) {
    if (w[j] == best.smoothed_best_omega) best_error = error(j);
  }
  place.loss_error = std::hypot(best_error, at_error);
  return place;
}

}  // namespace kktdae

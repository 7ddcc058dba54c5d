#include "kktdae/experiments/runaway_limit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <Eigen/QR>

#include "bracket_bisection.hpp"
#include "error_classification.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae {

std::string_view toString(RunawayVerdict verdict) {
  switch (verdict) {
    case RunawayVerdict::Stable: return "stable";
    case RunawayVerdict::ProbeUnstable: return "probe_unstable";
    case RunawayVerdict::Pumped: return "pumped";
  }
  return "unknown";
}

void RunawayLimitOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  requirePositive("dt", dt);
  requireNonNegative("zeta", zeta);
  requirePositive("horizon", horizon);
  if (min_steps < 10) throwInvalid("min_steps", "must be >= 10, got " + std::to_string(min_steps));
  requirePositive("probe_horizon", probe_horizon);
  if (probe_starts < 1) throwInvalid("probe_starts", "must be >= 1, got " + std::to_string(probe_starts));
  requireNonNegative("start_spread", start_spread);
  if (probe_starts > 1 && !(start_spread > 0.0)) {
    throwInvalid("start_spread", "must be > 0 with probe_starts = " + std::to_string(probe_starts) +
                                     " (the nearby starts would be the start), got " + formatDouble(start_spread));
  }
  requireNonNegative("settle_time", settle_time);
  requirePositive("energy_fraction", energy_fraction);
  requireNonNegative("lower", lower);
  requireNonNegative("upper", upper);
  requirePositive("tolerance", tolerance);
  requirePositive("blowup_ratio", blowup_ratio);
  requirePositive("decay_ratio", decay_ratio);
}

namespace {

/// The measured run's length T [s]: the horizon, and at least min_steps steps.
double runLength(const RunawayLimitOptions& options) {
  return options.dt * static_cast<double>(std::max(options.min_steps, std::lround(options.horizon / options.dt)));
}

/// Rule 2 of the prediction: the energy pumped from the end of the settling to T at `rate`
/// against energy_fraction of `kinetic`.
RunawayVerdict pumpingVerdict(double rate, double kinetic, const RunawayLimitOptions& options) {
  const double pumped = rate * (runLength(options) - options.settle_time);
  // A rate that could not be fitted (the probe ended inside the settling window) cannot say
  // "stable": treat it as the probe's own failure would be.
  if (!std::isfinite(pumped)) return RunawayVerdict::ProbeUnstable;
  return pumped > options.energy_fraction * kinetic ? RunawayVerdict::Pumped : RunawayVerdict::Stable;
}

}  // namespace

RunawayVerdict runawayVerdict(const EnergyPumping& pumping, const RunawayLimitOptions& options) {
  if (pumping.behaviour == ErrorBehaviour::BlowUp) return RunawayVerdict::ProbeUnstable;
  const double run_length = runLength(options);
  const double probe_length = static_cast<double>(pumping.steps) * options.dt;
  // A probe whose late error is above e0 may still sit on the correction's slow transient: near a
  // linear limit the error decays slowly, and at ζ = 1 it first rises (k·ρ^k). Carry it on to T at
  // the probe's own end trend (one factor late/previous per tenth of the probe): a decaying trend
  // says the T-run ends below e0. A late error already below e0 is the drift level the motion
  // keeps; it is not extrapolated (on the chains its tenth-to-tenth ratio is the motion's noise),
  // its growth comes with pumped energy, judged below.
  double late = pumping.late_max;
  if (late > pumping.e0 && run_length > probe_length && pumping.previous_max > 0.0) {
    const double tenths = (run_length - probe_length) / (0.1 * probe_length);
    late *= std::pow(pumping.late_max / pumping.previous_max, tenths);
  }
  if (!(late <= pumping.e0)) return RunawayVerdict::ProbeUnstable;
  return pumpingVerdict(pumping.rate, pumping.mean_kinetic, options);
}

RunawayVerdict runawayVerdict(const std::vector<EnergyPumping>& probes, const RunawayLimitOptions& options) {
  if (probes.empty()) throwInvalid("probes", "must hold at least one probe");
  if (probes.size() == 1) return runawayVerdict(probes.front(), options);
  double rate = 0.0, kinetic = 0.0;
  for (const EnergyPumping& probe : probes) {
    const RunawayVerdict own = runawayVerdict(probe, options);
    if (own == RunawayVerdict::ProbeUnstable) return own;
    rate += probe.rate;
    kinetic += probe.mean_kinetic;
  }
  const double count = static_cast<double>(probes.size());
  // The ensemble's verdict on the mean: one probe's rate is one draw of the bursts a chaotic
  // motion pumps and gives back, and what a run of length T integrates is their mean.
  return pumpingVerdict(rate / count, kinetic / count, options);
}

State nearbyStart(const ConstrainedSystem& system, const State& start, int index, double spread) {
  if (index < 0) throwInvalid("index", "must be >= 0, got " + std::to_string(index));
  requireNonNegative("spread", spread);
  const int nq = system.nq(), nc = system.nc();
  requireSize("start.q", start.q.size(), nq);
  requireSize("start.v", start.v.size(), nq);
  if (index == 0) return start;
  if (!(nc < nq)) {
    throwInvalid("system", "ker J is empty (nc = " + std::to_string(nc) + ", nq = " + std::to_string(nq) +
                               "): no velocity moves without moving phi_dot");
  }
  const int pair = (index + 1) / 2;  // 1, 1, 2, 2, …: index 2j − 1 and 2j share d_j
  const double sign = index % 2 == 1 ? 1.0 : -1.0;
  // A pseudo-random pattern in [−1, 1] seeded by the pair: deterministic on every platform
  // (std::minstd_rand's sequence is fixed by the standard) and without the period of a short
  // integer pattern (one mod 7 vanished for the third pair). Only that it moves the motion
  // matters, not its direction.
  std::minstd_rand draw(static_cast<std::minstd_rand::result_type>(pair));
  Vector d(nq);
  for (int i = 0; i < nq; ++i) {
    d[i] = 2.0 * static_cast<double>(draw() - std::minstd_rand::min()) /
               static_cast<double>(std::minstd_rand::max() - std::minstd_rand::min()) - 1.0;
  }
  Matrix J(nc, nq);
  system.constraintJacobian(start.q, start.t, J);
  // Minus the minimum-norm part with the same J d: the projection onto ker J, also for redundant
  // (rank-deficient) constraints.
  if (nc > 0) d -= J.completeOrthogonalDecomposition().solve(J * d);
  const double size = d.lpNorm<Eigen::Infinity>();
  if (!(size > 1e-12)) {
    throwInvalid("index", "the pattern of nearby start " + std::to_string(index) + " has no part in ker J");
  }
  State moved = start;
  moved.v += (sign * spread / size) * d;
  return moved;
}

namespace {

RunawayProbeEnsemble summarize(const std::vector<EnergyPumping>& probes, const RunawayLimitOptions& options) {
  RunawayProbeEnsemble out;
  out.probes = static_cast<int>(probes.size());
  std::vector<const EnergyPumping*> stable;
  for (const EnergyPumping& p : probes) {
    if (runawayVerdict(p, options) == RunawayVerdict::ProbeUnstable) {
      ++out.unstable;
    } else {
      stable.push_back(&p);
    }
  }
  const double n = static_cast<double>(stable.size());
  double sum = 0.0, sum_kinetic = 0.0;
  for (const EnergyPumping* p : stable) {
    sum += p->rate;
    sum_kinetic += p->mean_kinetic;
  }
  out.mean_rate = stable.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / n;
  out.mean_kinetic = stable.empty() ? std::numeric_limits<double>::quiet_NaN() : sum_kinetic / n;
  double squares = 0.0;
  for (const EnergyPumping* p : stable) squares += (p->rate - out.mean_rate) * (p->rate - out.mean_rate);
  out.rate_deviation = stable.size() > 1 ? std::sqrt(squares / (n - 1.0)) : 0.0;
  return out;
}

}  // namespace

RunawayLimit predictRunawayLimit(const ConstrainedSystem& system, const State& start,
                                 const RunawayLimitOptions& options) {
  options.validate();
  double lo = 0.0, hi = 0.0;
  std::tie(lo, hi) = detail::limitBracket(options.integrator, options.zeta, options.lower, options.upper);

  EnergyPumpingOptions probe;
  probe.integrator = options.integrator;
  probe.dt = options.dt;
  probe.zeta = options.zeta;
  probe.horizon = std::min(options.probe_horizon, options.horizon);
  probe.min_steps = options.min_steps;
  probe.settle_time = options.settle_time;
  probe.blowup_ratio = options.blowup_ratio;
  probe.decay_ratio = options.decay_ratio;
  probe.form = options.form;
  // The nearby starts are the same at every gain: made once.
  std::vector<State> starts;
  for (int k = 0; k < options.probe_starts; ++k) starts.push_back(nearbyStart(system, start, k, options.start_spread));
  RunawayLimit result;
  std::vector<EnergyPumping> probes;
  // Probes in start order; the first unstable one settles the verdict (any unstable probe makes
  // the ensemble unstable), so the rest are not run.
  auto judge = [&](double x, EnergyPumping& pumping, RunawayProbeEnsemble& ensemble) {
    probe.dt_omega = x;
    probes.clear();
    for (const State& s : starts) {
      probes.push_back(measureEnergyPumping(system, s, probe));
      ++result.probes;
      if (runawayVerdict(probes.back(), options) == RunawayVerdict::ProbeUnstable) break;
    }
    pumping = probes.front();
    ensemble = summarize(probes, options);
    return runawayVerdict(probes, options);
  };
  result.limit = std::numeric_limits<double>::quiet_NaN();
  result.lower = lo;
  result.upper = hi;
  const RunawayVerdict at_lo = judge(lo, result.at_lower, result.ensemble_at_lower);
  result.verdict_at_upper = judge(hi, result.at_upper, result.ensemble_at_upper);
  if (at_lo != RunawayVerdict::Stable) {
    result.message = std::string("predicted unstable (") + std::string(toString(at_lo)) + ") already at dt*omega = " + formatDouble(lo);
    return result;
  }
  if (result.verdict_at_upper == RunawayVerdict::Stable) {
    result.message = "still predicted stable at dt*omega = " + formatDouble(hi);
    return result;
  }
  std::tie(result.lower, result.upper) = detail::bisectBracket(lo, hi, options.tolerance, [&](double mid) {
    EnergyPumping pumping;
    RunawayProbeEnsemble ensemble;
    const RunawayVerdict verdict = judge(mid, pumping, ensemble);
    if (verdict == RunawayVerdict::Stable) {
      result.at_lower = pumping;
      result.ensemble_at_lower = ensemble;
    } else {
      result.at_upper = pumping;
      result.ensemble_at_upper = ensemble;
      result.verdict_at_upper = verdict;
    }
    return verdict == RunawayVerdict::Stable;
  });
  result.limit = 0.5 * (result.lower + result.upper);
  result.found = true;
  return result;
}

}  // namespace kktdae

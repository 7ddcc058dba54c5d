#include "kktdae/experiments/runaway_limit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

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
  requireNonNegative("settle_time", settle_time);
  requirePositive("energy_fraction", energy_fraction);
  requireNonNegative("lower", lower);
  requireNonNegative("upper", upper);
  requirePositive("tolerance", tolerance);
  requirePositive("blowup_ratio", blowup_ratio);
  requirePositive("decay_ratio", decay_ratio);
}

RunawayVerdict runawayVerdict(const EnergyPumping& pumping, const RunawayLimitOptions& options) {
  if (pumping.behaviour == ErrorBehaviour::BlowUp) return RunawayVerdict::ProbeUnstable;
  const double run_length = options.dt * static_cast<double>(std::max(options.min_steps, std::lround(options.horizon / options.dt)));
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
  const double pumped = pumping.rate * (run_length - options.settle_time);
  // A rate that could not be fitted (the probe ended inside the settling window) cannot say
  // "stable": treat it as the probe's own failure would be.
  if (!std::isfinite(pumped)) return RunawayVerdict::ProbeUnstable;
  return pumped > options.energy_fraction * pumping.mean_kinetic ? RunawayVerdict::Pumped : RunawayVerdict::Stable;
}

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
  RunawayLimit result;
  auto judge = [&](double x, EnergyPumping& pumping) {
    probe.dt_omega = x;
    pumping = measureEnergyPumping(system, start, probe);
    ++result.probes;
    return runawayVerdict(pumping, options);
  };
  result.limit = std::numeric_limits<double>::quiet_NaN();
  result.lower = lo;
  result.upper = hi;
  const RunawayVerdict at_lo = judge(lo, result.at_lower);
  result.verdict_at_upper = judge(hi, result.at_upper);
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
    const RunawayVerdict verdict = judge(mid, pumping);
    if (verdict == RunawayVerdict::Stable) {
      result.at_lower = pumping;
    } else {
      result.at_upper = pumping;
      result.verdict_at_upper = verdict;
    }
    return verdict == RunawayVerdict::Stable;
  });
  result.limit = 0.5 * (result.lower + result.upper);
  result.found = true;
  return result;
}

}  // namespace kktdae

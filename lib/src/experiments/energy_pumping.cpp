#include "kktdae/experiments/energy_pumping.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "error_classification.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {

void EnergyPumpingOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  requirePositive("dt", dt);
  requireNonNegative("zeta", zeta);
  requirePositive("dt_omega", dt_omega);
  requirePositive("horizon", horizon);
  if (min_steps < 10) throwInvalid("min_steps", "must be >= 10, got " + std::to_string(min_steps));
  requireNonNegative("settle_time", settle_time);
  const double length = dt * static_cast<double>(std::max(min_steps, std::lround(horizon / dt)));
  if (!(settle_time < length)) {
    throwInvalid("settle_time", "must be shorter than the run (" + formatDouble(length) + " s), got " +
                                    formatDouble(settle_time));
  }
  requirePositive("blowup_ratio", blowup_ratio);
  requirePositive("decay_ratio", decay_ratio);
}

EnergyPumping measureEnergyPumping(const ConstrainedSystem& system, const State& start,
                                   const EnergyPumpingOptions& options) {
  options.validate();
  Vector phi(system.nc());
  system.constraint(start.q, start.t, phi);
  const double e0 = phi.size() ? phi.lpNorm<Eigen::Infinity>() : 0.0;
  if (!(e0 > 0.0)) throwInvalid("start", "must be off the manifold (|phi(q0)| > 0): the correction is what pumps");

  SimulationOptions run;
  run.integrator = options.integrator;
  run.dt = options.dt;
  run.steps = std::max(options.min_steps, std::lround(options.horizon / options.dt));
  run.stabilization = Stabilization::fromDampingRatio(options.zeta, options.dt_omega / options.dt);
  run.kkt.form = options.form;
  run.divergence.enabled = false;  // the error's growth is classified here, as in the stability map
  const long late_from = *run.steps - *run.steps / 10;
  const long previous_from = late_from - *run.steps / 10;

  EnergyPumping result;
  result.start_energy = system.totalEnergy(start.q, start.v, start.t);
  result.settled_energy = std::numeric_limits<double>::quiet_NaN();
  // Streaming least squares of E against t over the settled window: no per-step storage.
  double n = 0.0, st = 0.0, se = 0.0, stt = 0.0, ste = 0.0, sk = 0.0, late_max = 0.0;
  bool exceeded = false;
  long step = 0;
  const double settle_at = start.t + options.settle_time;
  const Summary summary = simulate(system, start, run, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    system.constraint(q, t, phi);
    const double e = phi.lpNorm<Eigen::Infinity>();
    if (!(e <= options.blowup_ratio * e0)) exceeded = true;
    if (step >= late_from) {
      late_max = std::max(late_max, e);
    } else if (step >= previous_from) {
      result.previous_max = std::max(result.previous_max, e);
    }
    ++step;
    if (t < settle_at - 0.5 * options.dt) return;
    const double energy = system.totalEnergy(q, v, t);
    if (n == 0.0) result.settled_energy = energy;
    const double s = t - settle_at;  // centred near the window's start: keeps the sums well scaled
    n += 1.0;
    st += s;
    se += energy;
    stt += s * s;
    ste += s * energy;
    sk += system.kineticEnergy(q, v);
  });
  result.steps = summary.steps;
  result.end_time = start.t + static_cast<double>(summary.steps) * options.dt;
  result.e0 = e0;
  result.late_max = late_max;
  result.behaviour = detail::classifyError(!summary.ok() || exceeded, late_max, e0, options.decay_ratio);
  if (!summary.ok()) result.message = summary.message;
  const double spread = n * stt - st * st;
  result.rate = n >= 2.0 && spread > 0.0 ? (n * ste - st * se) / spread : std::numeric_limits<double>::quiet_NaN();
  result.mean_kinetic = n > 0.0 ? sk / n : std::numeric_limits<double>::quiet_NaN();
  return result;
}

}  // namespace kktdae

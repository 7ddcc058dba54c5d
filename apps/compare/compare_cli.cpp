#include "compare/compare_cli.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "common/cli_validators.hpp"
#include "common/generalized_alpha_flags.hpp"
#include "common/number_format.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/event_condition.hpp"

namespace kktdae::apps {
namespace {

/// Beyond this a single run's step count stops being a sensible request (and, near 2^63, the
/// library's conversion of horizon/dt to a step count would be undefined).
constexpr double kMaxStepsPerRun = 1e8;
/// The reference's RK4 cross-check steps at about 2.5e-4 s: past this horizon it alone would
/// take most of a day.
constexpr double kMaxHorizon = 1e4;

// The default sweeps halve the step four times: enough points to read a slope off the log–log
// plot. First-order methods need steps ten times finer than RK4 to reach comparable errors.
const std::vector<double> kFirstOrderDts = {2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4};
const std::vector<double> kRk4Dts = {2e-2, 1e-2, 5e-3, 2.5e-3, 1.25e-3};
// Second order (rattle): the middle of the two sweeps, errors from ~1e-3 down to ~1e-6.
const std::vector<double> kSecondOrderDts = {1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4};
const std::vector<double> kRtols = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};

/// Adaptive runs report on this grid; their energy drift is sampled there.
constexpr double kOutputSpacing = 0.01;
/// The reference's RK4 cross-check step (and its half): Richardson's estimate of RK4's error
/// at 1.25e-4 s is ~1e-13 on the double pendulum, well under what the cross-check resolves.
constexpr double kReferenceRk4Dt = 2.5e-4;

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(',', begin);
    items.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return items;
    begin = end + 1;
  }
}

/// The library refuses such a dt too (runWorkPrecision validates every case before running
/// any); checking here makes it a usage error, reported before anything runs.
bool dividesHorizon(double horizon, double dt) {
  const double steps = std::round(horizon / dt);
  return steps >= 1.0 && std::abs(steps * dt - horizon) <= 1e-9 * horizon;
}

/// The spacing closest to `target` that divides `horizon` into a whole number of intervals,
/// so the grid always ends exactly at the horizon.
double divisorSpacing(double horizon, double target, double max_intervals) {
  const double intervals = std::clamp(std::round(horizon / target), 1.0, max_intervals);
  return horizon / intervals;
}

}  // namespace

std::vector<double> parsePositiveList(const std::string& flag, const std::string& text) {
  std::vector<double> values;
  for (const std::string& item : splitCommas(text)) {
    char* end = nullptr;
    const double value = item.empty() ? 0.0 : std::strtod(item.c_str(), &end);
    if (item.empty() || end == nullptr || *end != '\0' || !std::isfinite(value) || value <= 0.0) {
      throw CLI::ValidationError(flag, "expected a comma-separated list of finite numbers > 0, got '" + item +
                                           "' in '" + text + "'");
    }
    values.push_back(value);
  }
  return values;
}

void addCompareFlags(CLI::App& app, CompareFlags& flags) {
  app.add_option("--model", flags.model, "chain: pendulum chain (--links, --tilt); circle: mass on a circle, "
                                         "started on it at (L, 0) at rest")
      ->check(CLI::IsMember({"chain", "circle"}))
      ->capture_default_str();
  app.add_option("--links", flags.links, "links of the chain (default 2: the double pendulum)")
      ->check(integerInRange(1, 1000));
  app.add_option("--event", flags.event,
                 "chain: a condition (q[i], x, y or tension[k], then < or >, a number, e.g. 'x<0') whose located "
                 "times each run reports against the reference's (event_time_error)");
  app.add_option("--tilt", flags.tilt, "chain: launch angle below +x [rad] (default " + pythonRepr(kDefaultTilt) + ")")
      ->check(finiteNumber());
  app.add_option("--horizon", flags.horizon, "T [s]: every run ends there and its error is measured there")
      ->check(finitePositive())
      ->capture_default_str();
  app.add_option("--dts", flags.dts,
                 "fixed steps [s] for euler, semi_implicit and rk4, comma-separated; each must divide T "
                 "(default: 2e-3 ... 1.25e-4 for the Euler methods, 2e-2 ... 1.25e-3 for rk4)");
  app.add_option("--rtols", flags.rtols,
                 "relative tolerances of the adaptive integrators, comma-separated; atol = 1e-2 rtol "
                 "(default 1e-3,1e-4,...,1e-10)");
  app.add_option("--integrators", flags.integrators,
                 "comma-separated subset of euler, semi_implicit, rk4, cvode_bdf, cvode_adams, ida_index1, "
                 "ida_ggl, rattle, generalized_alpha, hht (default: all)");
  app.add_option("--form", flags.form, "KKT form")->check(CLI::IsMember({"schur", "block"}))->capture_default_str();
  addGeneralizedAlphaFlags(app, flags.generalized_alpha);
  app.add_option("--stabilization", flags.stabilization,
                 "none: the error at T is integration error alone; baumgarte: add 2 alpha phidot + beta^2 phi "
                 "(ida_ggl, rattle, generalized_alpha and hht ignore it)")
      ->check(CLI::IsMember({"none", "baumgarte"}))
      ->capture_default_str();
  app.add_option("--alpha", flags.alpha, "Baumgarte damping alpha [1/s] (default 20; needs --stabilization baumgarte)")
      ->check(finiteNonNegative());
  app.add_option("--beta", flags.beta, "Baumgarte frequency beta [rad/s] (default 20; needs --stabilization baumgarte)")
      ->check(finiteNonNegative());
  app.add_option("--repeats", flags.repeats, "timed runs per setting; the median wall time is reported")
      ->check(integerInRange(1, 1000))
      ->capture_default_str();
  app.add_option("--reference-rtol", flags.reference_rtol,
                 "tolerance of the ida_ggl reference (atol = 1e-2 rtol); loosen it if the reference fails to start")
      ->check(finitePositive())
      ->capture_default_str();
  app.add_option("--threads", flags.threads,
                 "threads for the runs (0: all cores); every number but the wall times is the same for any count, "
                 "but runs sharing the cores time slower")
      ->check(integerInRange(0, kMaxSweepThreads))
      ->capture_default_str();
  app.add_option("--out", flags.out, "writes compare.csv, compare.json, work_precision.gp and work_precision.png here")
      ->required();
}

CompareSetup finishCompareFlags(const CompareFlags& flags, const CLI::App& app) {
  CompareSetup setup;
  setup.model = flags.model;
  if (flags.model == "chain") {
    setup.links = flags.links.value_or(2);
    setup.tilt = flags.tilt.value_or(kDefaultTilt);
  } else {
    if (flags.links) throw CLI::ValidationError("--links", "applies to --model chain only");
    if (flags.tilt) throw CLI::ValidationError("--tilt", "applies to --model chain only");
    if (flags.event) throw CLI::ValidationError("--event", "applies to --model chain only");
  }
  if (flags.event) {
    try {  // checked here against the chain the run will build, so that a typo is a usage error
      parseChainCondition("condition", *flags.event, PendulumChain(PendulumChainParams::uniform(setup.links)));
    } catch (const std::invalid_argument& error) {
      throw CLI::ValidationError("--event", error.what());
    }
    setup.event = *flags.event;
  }
  if (flags.horizon > kMaxHorizon) {
    throw CLI::ValidationError("--horizon", "at most " + pythonRepr(kMaxHorizon) + " s, got " + pythonRepr(flags.horizon));
  }

  if (flags.integrators.empty()) {
    setup.integrators = allIntegrators();
  } else {
    for (const std::string& name : splitCommas(flags.integrators)) {
      Integrator integrator{};
      try {
        integrator = parseIntegrator(name);
      } catch (const std::invalid_argument&) {
        std::string choices;
        for (Integrator known : allIntegrators()) choices += (choices.empty() ? "" : ", ") + std::string(toString(known));
        throw CLI::ValidationError("--integrators", "unknown integrator '" + name + "' (choose " + choices + ")");
      }
      if (std::find(setup.integrators.begin(), setup.integrators.end(), integrator) != setup.integrators.end()) {
        throw CLI::ValidationError("--integrators", "'" + name + "' is listed twice");
      }
      setup.integrators.push_back(integrator);
    }
  }
  requireGeneralizedAlphaFlagsApply(app, setup.integrators, "--integrators");

  const std::vector<double> dts = flags.dts.empty() ? std::vector<double>{} : parsePositiveList("--dts", flags.dts);
  const std::vector<double> rtols = flags.rtols.empty() ? kRtols : parsePositiveList("--rtols", flags.rtols);
  for (Integrator integrator : setup.integrators) {
    if (isAdaptive(integrator)) {
      for (double rtol : rtols) setup.cases.push_back({integrator, 0.0, rtol});
      continue;
    }
    const std::vector<double>& sweep = !dts.empty()                        ? dts
                                       : integrator == Integrator::Rk4    ? kRk4Dts
                                       : convergenceOrder(integrator) == 2 ? kSecondOrderDts
                                                                          : kFirstOrderDts;
    for (double dt : sweep) {
      if (flags.horizon / dt > kMaxStepsPerRun) {
        throw CLI::ValidationError("--dts", "T / dt = " + pythonRepr(flags.horizon / dt) + " steps; at most " +
                                                pythonRepr(kMaxStepsPerRun) + " per run");
      }
      if (!dividesHorizon(flags.horizon, dt)) {
        throw CLI::ValidationError(dts.empty() ? "--horizon" : "--dts",
                                   "dt = " + pythonRepr(dt) + " s (" + std::string(toString(integrator)) +
                                       ") does not divide T = " + pythonRepr(flags.horizon) + " s into whole steps");
      }
      setup.cases.push_back({integrator, dt, 0.0});
    }
  }

  WorkPrecisionOptions& options = setup.options;
  options.horizon = flags.horizon;
  options.output_dt = divisorSpacing(flags.horizon, kOutputSpacing, 1e6);
  options.reference_rk4_dt = divisorSpacing(flags.horizon, kReferenceRk4Dt, kMaxStepsPerRun / 2);
  options.timing_repeats = flags.repeats;
  options.reference_rtol = flags.reference_rtol;
  options.parallel.threads = flags.threads;
  options.kkt.form = parseKktForm(flags.form);
  options.generalized_alpha = flags.generalized_alpha;
  if (flags.stabilization == "baumgarte") {
    options.stabilization = Stabilization::baumgarte(flags.alpha.value_or(20.0), flags.beta.value_or(20.0));
  } else {
    if (flags.alpha) throw CLI::ValidationError("--alpha", "needs --stabilization baumgarte");
    if (flags.beta) throw CLI::ValidationError("--beta", "needs --stabilization baumgarte");
    options.stabilization = Stabilization::none();
  }
  return setup;
}

}  // namespace kktdae::apps

// kktdae-circle: seed 002's planar mass on a circle, Baumgarte-stabilized, block-form KKT.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>

#include "common/cli_validators.hpp"
#include "common/exit_codes.hpp"
#include "common/generalized_alpha_flags.hpp"
#include "common/gnuplot.hpp"
#include "common/interrupt.hpp"
#include "common/json_output.hpp"
#include "common/memory_budget.hpp"
#include "common/number_format.hpp"
#include "common/run_directory.hpp"
#include "common/run_warnings.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

struct CircleFlags {
  std::string integrator = "rk4";
  GeneralizedAlphaOptions generalized_alpha;  ///< --rho-inf, --hht-alpha
  std::string form = "block";
  double dt = 0.005;
  double t_final = 5.0;
  double rtol = 1e-6;  // seed 002's lesson
  double atol = 1e-9;
  double alpha = 5.0;
  double beta = 10.0;
  double x0 = 1.01;
  double mass = 1.0;
  double radius = 1.0;
  std::string out;
};

/// The times seed 002's lesson invites a look at, and their keys in metrics.json.
const std::vector<std::pair<std::string, double>> kReportTimes = {
    {"0.1", 0.1}, {"0.5", 0.5}, {"1", 1.0}, {"2", 2.0}, {"5", 5.0}};

/// "The largest |φ| after 1 s": past the start-up transient, what the stabilization holds.
constexpr double kSettledAfter = 1.0;

/// Beyond this the per-state record alone would not fit in memory, and a count near 2^63 would
/// make the conversion to long undefined.
constexpr double kMaxSteps = 1e9;

/// The dt grid covering [0, t_final]: its step count (t_final / dt rounded to the nearest) and
/// whether that rounding moved the end.
struct Grid {
  long steps = 0;
  double t_end = 0.0;
  bool rounded = false;
};

/// Peak memory per observed state [bytes], measured with /usr/bin/time over 2e6 and 4e6 states
/// (docs/apps.md, "Memory"): 47 for the trace (t, φ, φ̇, λ and x, y), 197 more with --out for its row of
/// circle.csv (the text and its growth); rounded up.
constexpr double kBytesPerState = 60.0, kCsvBytesPerState = 240.0;

/// The run's peak memory [bytes]: the states of the dt grid over t_final, and their CSV rows with --out.
double memoryEstimate(const CircleFlags& flags) {
  const double states = std::round(flags.t_final / flags.dt) + 1.0;
  return 16e6 + states * (kBytesPerState + (flags.out.empty() ? 0.0 : kCsvBytesPerState));
}

/// Throws CLI::ValidationError when the grid would be empty or larger than kMaxSteps; checked
/// on the double, before any conversion to an integer.
Grid gridFor(double t_final, double dt) {
  const double steps = std::round(t_final / dt);
  if (!(steps <= kMaxSteps)) {
    throw CLI::ValidationError("--t-final/--dt", "t_final / dt = " + pythonRepr(t_final / dt) +
                                                     " steps; at most 1e9 are supported");
  }
  if (steps < 1.0) {
    throw CLI::ValidationError("--t-final", pythonRepr(t_final) + " s is shorter than half a step dt = " +
                                                pythonRepr(dt) + " s");
  }
  Grid grid;
  grid.steps = static_cast<long>(steps);
  grid.t_end = steps * dt;
  grid.rounded = std::abs(grid.t_end - t_final) > 1e-9 * std::max(1.0, t_final);
  return grid;
}

/// The extremes of |φ| over a trace, for the report. Kept here rather than on ConstraintTrace
/// because the apps may not change the library (a candidate for ConstraintTrace later).
struct PhiExtremes {
  std::optional<double> max_abs;        ///< empty when nothing was observed
  std::optional<double> max_abs_after;  ///< empty when the trace ends at or before `after`
};

PhiExtremes phiExtremes(const ConstraintTrace& trace, double after) {
  PhiExtremes extremes;
  // Grid times are k·dt in floating point: 1 s may come out a few ulps above 1.
  const double cutoff = after + 1e-9 * std::max(1.0, after);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const double phi = trace.phiInf(i);
    extremes.max_abs = std::max(extremes.max_abs.value_or(0.0), phi);
    if (trace.times()[i] > cutoff) extremes.max_abs_after = std::max(extremes.max_abs_after.value_or(0.0), phi);
  }
  return extremes;
}

nlohmann::json orNull(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string describeMaybe(const std::optional<double>& value) {
  if (!value) return "n/a";
  char text[64];
  std::snprintf(text, sizeof text, "%.6e", *value);
  return text;
}

int run(const CircleFlags& flags) {
  const CircleMass circle(CircleMassParams{flags.mass, 9.81, flags.radius});
  SimulationOptions options;
  options.integrator = parseIntegrator(flags.integrator);
  const bool adaptive = isAdaptive(options.integrator);
  options.kkt.form = parseKktForm(flags.form);
  options.dt = flags.dt;
  const Grid grid = gridFor(flags.t_final, flags.dt);
  options.steps = grid.steps;
  options.adaptive.rtol = flags.rtol;
  options.adaptive.atol = flags.atol;
  options.generalized_alpha = flags.generalized_alpha;
  options.stabilization = Stabilization::baumgarte(flags.alpha, flags.beta);
  connectInterrupt(options);

  const std::filesystem::path out = flags.out;
  requireMemory("--t-final " + pythonRepr(flags.t_final) + " --dt " + pythonRepr(flags.dt), memoryEstimate(flags));
  // An unusable --out fails before the run, not after it; an earlier run's files go first.
  std::optional<RunDirectory> dir;
  if (!out.empty()) dir.emplace(openRunDirectory("--out", out, "kktdae-circle", {"metrics.json", "timing.json", "circle.csv", "phi.gp", "phi.png"}));

  ConstraintTrace trace(circle);
  std::vector<double> x, y;
  long observed = 0;
  const Summary summary = simulate(circle, circle.initialState(flags.x0), options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                     trace.observe(t, q, v, lambda);
                                     x.push_back(q[0]);
                                     y.push_back(q[1]);
                                     testSignalAtStep(observed++);
                                   });
  const RunOutcome run_outcome = interrupted() ? RunOutcome::Interrupted : summary.ok() ? RunOutcome::Complete : RunOutcome::Failed;

  const std::string integrator_text =
      adaptive ? flags.integrator + " (rtol " + pythonRepr(flags.rtol) + ", atol " + pythonRepr(flags.atol) +
                     "), outputs every " + pythonRepr(flags.dt) + " s"
               : flags.integrator + ", dt " + pythonRepr(flags.dt) + " s";
  std::printf("circle mass (seed 002): m=%s, L=%s, alpha=%s, beta=%s, start x=%s L, %s form, %s, %ld steps\n",
              pythonRepr(flags.mass).c_str(), pythonRepr(flags.radius).c_str(), pythonRepr(flags.alpha).c_str(),
              pythonRepr(flags.beta).c_str(), pythonRepr(flags.x0).c_str(), flags.form.c_str(),
              integrator_text.c_str(), summary.steps);
  if (grid.rounded) {
    std::printf("note: t_final = %s s is not a multiple of dt: %ld steps, the run ends at t = %s s\n",
                pythonRepr(flags.t_final).c_str(), grid.steps, pythonRepr(grid.t_end).c_str());
  }
  if (!summary.notes.empty()) std::printf("notes: %s\n", summary.notes.c_str());

  const PhiExtremes extremes = phiExtremes(trace, kSettledAfter);
  if (trace.size() > 0) {
    // ida_ggl starts from the projected state, so its first |φ| is not the lesson's starting error.
    std::printf("Max |phi|: %.6g   (the starting error %.4g%s)\n", *extremes.max_abs, trace.phiInf(0),
                options.integrator == Integrator::IdaGgl ? " after ida_ggl's initial projection" : ": the lesson's number");
  } else {
    std::printf("Max |phi|: n/a   (no state was observed)\n");
  }
  // Report times fall on the grid only when dt divides them: report the nearest grid point
  // and its own time. A report time whose nearest grid point lies past the end is left out.
  nlohmann::json phi_at_t = nlohmann::json::object(), phi_at_t_time = nlohmann::json::object();
  for (const auto& [key, t] : kReportTimes) {
    const double nearest = std::round(t / flags.dt);
    if (nearest > static_cast<double>(grid.steps)) continue;  // compared as doubles: t / dt may be huge
    const auto i = static_cast<std::size_t>(nearest);
    if (i >= trace.size()) continue;  // the run failed before it
    const double t_i = trace.times()[i];
    std::printf("phi(t = %s s) = % .6e%s\n", key.c_str(), trace.phi(i, 0),
                std::abs(t_i - t) > 1e-9 * std::max(1.0, t) ? ("   (at the grid point t = " + pythonRepr(t_i) + " s)").c_str()
                                                             : "");
    phi_at_t[key] = trace.phi(i, 0);
    phi_at_t_time[key] = t_i;
  }
  if (extremes.max_abs_after) {
    std::printf("max |phi| after 1 s: %s\n", describeMaybe(extremes.max_abs_after).c_str());
  } else {
    std::printf("max |phi| after 1 s: n/a (the run ends at or before 1 s)\n");
  }
  std::fflush(stdout);  // keep the failure line after the report when both go to one pipe
  if (!summary.ok()) std::fprintf(stderr, "kktdae-circle: run failed: %s\n", summary.message.c_str());
  if (const std::string warnings = describeWarnings(summary); !warnings.empty()) std::printf("%s\n", warnings.c_str());

  if (!dir) return exitCodeFor(run_outcome);
  nlohmann::json metrics;
  metrics["model"] = "circle_mass";
  metrics["integrator"] = flags.integrator;
  if (adaptive) {
    metrics["rtol"] = flags.rtol;
    metrics["atol"] = flags.atol;
  }
  metrics["form"] = flags.form;
  metrics["dt"] = flags.dt;
  metrics["t_final"] = flags.t_final;
  metrics["t_end"] = grid.t_end;
  metrics["alpha"] = flags.alpha;
  metrics["beta"] = flags.beta;
  metrics["x0_over_radius"] = flags.x0;
  metrics["phi_at_t"] = phi_at_t;
  metrics["phi_at_t_time"] = phi_at_t_time;
  metrics["phi_final"] = trace.size() > 0 ? nlohmann::json(trace.phi(trace.size() - 1, 0)) : nlohmann::json(nullptr);
  metrics["max_abs_phi"] = orNull(extremes.max_abs);
  metrics["max_abs_phi_after_1s"] = orNull(extremes.max_abs_after);
  metrics["steps"] = summary.steps;
  metrics["rhs_evaluations"] = summary.rhs_evaluations;
  metrics["jacobian_evaluations"] = summary.jacobian_evaluations;
  metrics["error_test_failures"] = summary.error_test_failures;
  metrics["convergence_failures"] = summary.convergence_failures;
  if (!summary.notes.empty()) metrics["notes"] = summary.notes;
  metrics["status"] = run_outcome == RunOutcome::Interrupted ? "interrupted" : summary.ok() ? "ok" : "failed";
  if (!summary.ok()) metrics["message"] = summary.message;
  writeJson(*dir, "metrics.json", metrics);
  nlohmann::json timing;
  timing["wall_seconds"] = summary.wall_seconds;
  timing["seconds_per_step"] = summary.steps ? summary.wall_seconds / static_cast<double>(summary.steps) : 0.0;
  writeJson(*dir, "timing.json", timing);

  std::string csv = "t,x,y,phi,phi_dot,lambda\n";
  for (std::size_t i = 0; i < trace.size(); ++i) {
    csv += csvNumber(trace.times()[i]) + "," + csvNumber(x[i]) + "," + csvNumber(y[i]) + "," +
           csvNumber(trace.phi(i, 0)) + "," + csvNumber(trace.phiDot(i, 0)) + "," + csvNumber(trace.lambda(i, 0)) + "\n";
  }
  dir->write("circle.csv", csv);
  std::printf("metrics: %s\ntiming: %s\nrecording: %s\n", dir->file("metrics.json").c_str(),
              dir->file("timing.json").c_str(), dir->file("circle.csv").c_str());
  auto finish = [&](RunOutcome outcome, const std::string& message) {
    if (interrupted()) outcome = RunOutcome::Interrupted;
    dir->finish(outcome, !message.empty() ? message : summary.ok() ? std::string() : summary.message);
    std::printf("manifest: %s (%s)\n", dir->file(kManifestName).c_str(), toString(outcome));
    return exitCodeFor(outcome);
  };
  if (trace.size() < 2) {
    // The run directory removed an earlier run's plot before this run began.
    std::printf("plot not drawn: fewer than two states were observed\n");
    return finish(run_outcome, {});
  }
  const std::string script =
      "if (!exists(\"outfile\")) outfile = 'phi.png'\n"
      "set terminal pngcairo size 1000,620 enhanced font 'DejaVu Sans,11'\nset output outfile\n"
      "set datafile separator ','\nset grid\nset key top right box opaque\nset autoscale xfix\n"
      "set title " + gnuplotQuote("circle mass: constraint error phi = x^2 + y^2 - L^2, alpha " + pythonRepr(flags.alpha) +
                                  ", beta " + pythonRepr(flags.beta) + ", " + integrator_text) +
      " noenhanced\n"
      "set multiplot layout 2,1\n"
      "set ylabel 'phi [m^2]'\nplot 'circle.csv' using 1:4 skip 1 with lines lw 2 title 'phi(t)'\n"
      "unset title\nset logscale y\nset format y '10^{%L}'\nset xlabel 'time t [s]'\nset ylabel '|phi| [m^2]'\n"
      "plot 'circle.csv' using 1:(abs($4) > 0 ? abs($4) : 1/0) skip 1 with lines lw 2 title '|phi(t)|'\n"
      "unset multiplot\n";
  const PlotOutcome plot = renderPlot(*dir, "phi.gp", "phi.png", script);
  std::printf("%s\n", plot.line().c_str());
  return finish(worse(run_outcome, outcomeOf(plot)), plot.status == PlotStatus::Failed ? plot.note : std::string());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Seed 002's point mass on a circle with Baumgarte stabilization in the block KKT form",
               "kktdae-circle"};
  CircleFlags flags;
  app.add_option("--integrator", flags.integrator,
                 "fixed-step (euler, semi_implicit, rk4, rattle, generalized_alpha, hht: step dt) or adaptive (SUNDIALS: outputs every dt)")
      ->check(CLI::IsMember(integratorChoices()))
      ->capture_default_str();
  addGeneralizedAlphaFlags(app, flags.generalized_alpha);
  app.add_option("--form", flags.form, "KKT form")->check(CLI::IsMember({"schur", "block"}))->capture_default_str();
  app.add_option("--dt", flags.dt, "time step [s]; the output spacing of the adaptive integrators")
      ->check(finitePositive())
      ->capture_default_str();
  app.add_option("--t-final", flags.t_final, "horizon [s]; rounded to the nearest multiple of dt")
      ->check(finitePositive())
      ->capture_default_str();
  addToleranceFlags(app, flags.rtol, flags.atol);
  app.add_option("--alpha", flags.alpha, "Baumgarte damping alpha [1/s]")->check(finiteNonNegative())->capture_default_str();
  app.add_option("--beta", flags.beta, "Baumgarte frequency beta [rad/s]")->check(finiteNonNegative())->capture_default_str();
  app.add_option("--x0", flags.x0, "start at (x0 * L, 0), at rest")->check(finitePositive())->capture_default_str();
  app.add_option("--mass", flags.mass, "mass m [kg]")->check(finitePositive())->capture_default_str();
  app.add_option("--radius", flags.radius, "circle radius L [m]")->check(finitePositive())->capture_default_str();
  app.add_option("--out", flags.out, "write metrics.json, timing.json, circle.csv and phi.png here");
  installInterruptHandlers();
  try {
    app.parse(argc, argv);
    requireGeneralizedAlphaFlagsApply(app, {parseIntegrator(flags.integrator)}, "--integrator " + flags.integrator);
    return run(flags);
  } catch (const CLI::ParseError& error) {
    return usageExit(app, error);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kktdae-circle: error: out of memory (--t-final %s --dt %s: %s)\n",
                 pythonRepr(flags.t_final).c_str(), pythonRepr(flags.dt).c_str(),
                 memoryShortfall(memoryEstimate(flags)).c_str());
    return kExitFailed;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-circle: error: %s\n", error.what());
    return kExitFailed;
  }
}

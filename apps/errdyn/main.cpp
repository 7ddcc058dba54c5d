// kktdae-errdyn: Baumgarte's error dynamics ë + 2αė + β²e = 0, measured against the closed
// form, and the discrete stability limits of the fixed-step integrators, derived and measured.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <algorithm>
#include <exception>

#include "common/cli_validators.hpp"
#include "common/exit_codes.hpp"
#include "common/interrupt.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"
#include "common/run_directory.hpp"
#include "errdyn/errdyn_adaptive.hpp"
#include "errdyn/errdyn_maps.hpp"
#include "errdyn/errdyn_trajectory.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

struct Model {
  std::string name;
  const ConstrainedSystem* system;
  State start;  ///< off the manifold
};

struct Flags {
  std::string out;
  double rtol = 1e-10;
  int map_points = 14;  ///< grid points per axis of each map
  bool maps = true;
  bool limits = true;
  int threads = 0;      ///< threads for the independent runs; 0 = all cores
  bool trajectory = false;  ///< the trajectory-based limits and the soft-constraint decay (costs runs)
  bool adaptive = false;    ///< the gains of the adaptive integrators, scanned over ω (costs runs)
  int adaptive_ensemble = 3;  ///< --adaptive: runs per grid point at nearby tolerances
  std::vector<double> adaptive_tolerances = {1e-5, 1e-7, 1e-10};  ///< --adaptive: rtol = atol of the scans
  bool adaptive_tuner_only = false;  ///< only the tuner of every --adaptive case (no full scan)
  double adaptive_tuner_horizon = 0.5;  ///< the part of each case's run the tuner scans
  /// The tuner's refinement, gains per decade (0 = none): the library's default unless given.
  int adaptive_tuner_refine = kktdae::AdaptiveGainTunerOptions{}.refine_per_decade;
};

const std::vector<Integrator> kFixedStep = {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Rk4};
const std::vector<std::string> kModelNames = {"plane", "circle", "chain2", "chain3"};

/// errdyn.json and every map's .csv, .gp and .png.
std::vector<std::string> errdynFiles() {
  // --trajectory's tables and its limit plots (for the integrators runTrajectory compares).
  std::vector<std::string> files = {"errdyn.json", "limits.csv", "soft_decay.csv", "limits_rk4.gp", "limits_rk4.png",
                                    "limits_semi_implicit.gp", "limits_semi_implicit.png"};
  for (Integrator integrator : kFixedStep) {
    for (const std::string& model : kModelNames) {
      const std::string stem = stabilityMapStem(std::string(toString(integrator)), model);
      for (const char* extension : {".csv", ".gp", ".png"}) files.push_back(stem + extension);
    }
  }
  for (const std::string& file : adaptiveGainFiles()) files.push_back(file);
  return files;
}

/// An n-link chain hanging at rest with link k's constraint at φ_k = e_k (φ = ½(|d|² − L²)).
State hangingChain(const PendulumChain& chain, const Vector& e) {
  State s = chain.initialState(0.0);
  s.q.setZero();
  s.v.setZero();
  double y = 0.0;
  for (int k = 0; k < chain.links(); ++k) {
    y -= std::sqrt(chain.params().lengths[static_cast<std::size_t>(k)] * chain.params().lengths[static_cast<std::size_t>(k)] + 2.0 * e[k]);
    s.q[3 * k + 1] = y;
  }
  return s;
}

/// §5–§7 of docs/baumgarte.md: predicted vs measured limits, and the soft constraints' decay.
nlohmann::json runTrajectory(RunDirectory& out, const std::vector<Model>& models, int threads) {
  nlohmann::json section;
  std::vector<LimitComparisonCase> cases;
  for (const Model& model : models) {
    if (model.name == "plane") continue;  // the linear model is the closed form (tested)
    for (Integrator integrator : {Integrator::Rk4, Integrator::SemiImplicitEuler}) {
      for (double dt : {0.01, 0.005, 0.002, 0.001}) cases.push_back({model.name, model.system, model.start, integrator, dt});
    }
  }
  LimitComparisonOptions options;
  options.horizon = 20.0;
  options.parallel.threads = threads;
  options.interrupt = interruptFlag();  // the rows stop between their limits (each about a second)
  std::printf("\ntrajectory-based limits of dt*omega (zeta = 1, 20 s runs; predicted: normal block of the step along\n"
              "the motion at half the closed-form gain, bisected; runaway: the energy pumped in %g-s probes carried\n"
              "on to the horizon; measured: bisection on the runs' classification)\n",
              options.runaway_probe_horizon);
  std::vector<std::string> lines;
  const std::vector<LimitComparisonRow> rows = compareStabilityLimits(cases, options);
  if (interrupted()) return section;  // unfinished rows are no result
  section["limits"] = writeLimitComparison(out, rows, lines);
  for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  if (interrupted()) return section;

  // Soft constraints: a line without gravity (no offset), with gravity (offset), hanging chains.
  PointOnPlaneParams weightless;
  weightless.gravity = 0.0;
  const PointOnPlane line_free(weightless), line_weight;
  const PendulumChain chain2(PendulumChainParams::uniform(2)), chain3(PendulumChainParams::uniform(3));
  struct SoftCase {
    std::string name;
    const ConstrainedSystem* system;
    SoftConstraint soft;
  };
  std::vector<SoftCase> soft_cases;
  for (double zeta : {0.5, 1.0, 2.0}) {
    SoftConstraint soft;
    soft.dampratio = zeta;
    soft_cases.push_back({"line d=dmin zeta=" + shortest(zeta), &line_free, soft});
    soft.dmin = soft.dmax;
    soft_cases.push_back({"line d=dmax zeta=" + shortest(zeta), &line_free, soft});
  }
  SoftConstraint under;
  under.dampratio = 0.5;
  soft_cases.push_back({"line+gravity zeta=0.5", &line_weight, under});
  for (const PendulumChain* chain : {&chain2, &chain3}) {
    SoftConstraint fixed_d = under;
    fixed_d.dmin = fixed_d.dmax;
    soft_cases.push_back({"chain" + std::to_string(chain->links()) + " zeta=0.5", chain, under});
    soft_cases.push_back({"chain" + std::to_string(chain->links()) + " d=dmax zeta=0.5", chain, fixed_d});
  }
  SweepOptions parallel;
  parallel.threads = threads;
  const std::vector<SoftDecayRow> soft_rows = sweep(
      soft_cases.size(),
      [&](std::size_t i) {
        const SoftCase& c = soft_cases[i];
        // Start 1e-6 off the forced equilibrium, where the linearization holds.
        State start;
        if (const auto* chain = dynamic_cast<const PendulumChain*>(c.system)) {
          Vector e = softErrorDynamics(*chain, hangingChain(*chain, Vector::Zero(chain->links())), c.soft).offset;
          e[0] += 1e-6;
          start = hangingChain(*chain, e);
        } else {
          const auto& line = static_cast<const PointOnPlane&>(*c.system);
          const double offset = softErrorDynamics(line, line.offManifoldState(0.0, 0.0), c.soft).offset[0];
          start = line.offManifoldState(offset + 1e-6, 0.0, 0.3);
        }
        return SoftDecayRow{c.name, c.soft, checkSoftDecay(*c.system, start, c.soft)};
      },
      parallel);
  std::printf("\nsoft constraints: decay rate [1/s] asked (timeconst 0.02 s) / predicted / measured (RK4, dt 1e-4)\n");
  lines.clear();
  section["soft"] = writeSoftDecayTable(out, soft_rows, lines);
  for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  return section;
}

int run(const Flags& flags) {
  RunDirectory dir = openRunDirectory("--out", flags.out, "kktdae-errdyn", errdynFiles());
  RunOutcome outcome = RunOutcome::Complete;
  std::string failure;

  const CircleMass circle;
  const PointOnPlane plane;
  const PendulumChain chain2(PendulumChainParams::uniform(2)), chain3(PendulumChainParams::uniform(3));
  // The chains start with every link 2 % long and a velocity that stretches them (J q̇ ≠ 0).
  auto stretched = [](const PendulumChain& chain) {
    State s = chain.initialState(0.3);
    s.q *= 1.02;
    for (Eigen::Index i = 0; i < s.v.size(); ++i) s.v[i] = 0.1 * static_cast<double>((i * 7) % 5 - 2);
    return s;
  };
  const std::vector<Model> models = {{"plane", &plane, plane.offManifoldState(0.01, -0.2, 0.5)},
                                     {"circle", &circle, circle.initialState(1.01)},
                                     {"chain2", &chain2, stretched(chain2)},
                                     {"chain3", &chain3, stretched(chain3)}};
  nlohmann::json document;

  // 1. Continuous error dynamics against the closed form.
  std::printf("continuous error dynamics (CVODE BDF, rtol %g): max |e - e_closed| / max |e_closed|\n", flags.rtol);
  std::printf("%-8s %-12s %7s %7s %14s %14s\n", "model", "case", "alpha", "beta", "deviation e", "deviation e'");
  const std::vector<std::tuple<std::string, double, double>> regimes = {
      {"under-damped", 5.0, 10.0}, {"critical", 10.0, 10.0}, {"over-damped", 20.0, 10.0}};
  nlohmann::json continuous = nlohmann::json::array();
  SweepOptions parallel;
  parallel.threads = flags.threads;
  // The twelve checks are independent runs: all at once, printed in order afterwards.
  const std::vector<ErrorDynamicsCheck> checks = sweep(
      models.size() * regimes.size(),
      [&](std::size_t i) {
        const Model& model = models[i / regimes.size()];
        ErrorDynamicsCheckOptions options;
        options.alpha = std::get<1>(regimes[i % regimes.size()]);
        options.beta = std::get<2>(regimes[i % regimes.size()]);
        options.rtol = flags.rtol;
        options.atol = 1e-2 * flags.rtol;
        return checkErrorDynamics(*model.system, model.start, options);
      },
      parallel);
  std::size_t check_index = 0;
  for (const Model& model : models) {
    for (const auto& [regime, alpha, beta] : regimes) {
      const ErrorDynamicsCheck& check = checks[check_index++];
      std::printf("%-8s %-12s %7.1f %7.1f %14.3e %14.3e%s\n", model.name.c_str(), regime.c_str(), alpha, beta,
                  check.max_rel_deviation, check.max_rel_deviation_rate,
                  check.summary.ok() ? "" : ("  FAILED: " + check.summary.message).c_str());
      continuous.push_back({{"case", model.name + " " + regime}, {"model", model.name}, {"alpha", alpha}, {"beta", beta},
                            {"max_rel_deviation", metricNumber(check.max_rel_deviation)},
                            {"max_rel_deviation_rate", metricNumber(check.max_rel_deviation_rate)},
                            {"e0", check.e0_max}, {"rtol", flags.rtol}, {"status", check.summary.ok() ? "ok" : "failed"}});
    }
  }
  document["continuous"] = continuous;

  // The library's sweeps run to their end; a signal is obeyed between them (each takes about a
  // second), and errdyn.json then holds the parts finished.
  if (flags.limits && !interrupted()) {
    // 2. Discrete stability limits: derived, measured on the linear model, measured on the others.
    std::printf("\ncritically damped stability limit of dt*omega (dt = 0.005 s, 20 s runs; measured = first unstable gain\n"
                "above the stable band, grid 0.01; a model unstable at every gain shows the grid's first point)\n");
    std::printf("%-14s %9s %9s %9s %9s %9s   seed 000's 'dt*omega ~ 1' is off by\n", "integrator", "derived", "plane",
                "circle", "chain2", "chain3");
    nlohmann::json stability;
    for (Integrator integrator : kFixedStep) {
      if (interrupted()) break;
      const std::string name(toString(integrator));
      const double derived = baumgarteStabilityLimit(integrator, 1.0);
      StabilityMapOptions options;
      options.integrator = integrator;
      options.dts = {0.005};
      options.min_steps = 4000;  // long enough for the critically damped transient to die
      options.parallel.threads = flags.threads;
      // A band around the derived limit: wide enough below it to find the stable cells.
      for (double x = std::max(0.01, derived - 0.6); x <= derived + 0.3; x += 0.01) options.omegas.push_back(x / 0.005);
      nlohmann::json by_model;
      double measured_linear = 0.0;
      std::printf("%-14s %9.4f", name.c_str(), derived);
      for (const Model& model : models) {
        const double measured = measuredStabilityLimit(runStabilityMap(*model.system, model.start, options));
        std::printf(" %9.3f", measured);
        if (model.name == "plane") {
          measured_linear = measured;
        } else {
          by_model[model.name] = metricNumber(measured);
        }
      }
      std::printf("   %+.0f %%\n", 100.0 * (1.0 - derived) / derived);
      nlohmann::json zeta_limits;
      for (double zeta : {0.25, 0.5, 0.7, 1.0, 1.5, 2.0, 4.0}) {
        zeta_limits[pythonRepr(zeta)] = baumgarteStabilityLimit(integrator, zeta);
      }
      const BaumgarteRecommendation recommended = recommendBaumgarte(integrator, 0.005);
      stability[name] = {{"derived", derived},
                         {"measured", metricNumber(measured_linear)},
                         {"measured_by_model", by_model},
                         {"derived_by_zeta", zeta_limits},
                         {"recommended_omega_at_dt_0.005", recommended.omega},
                         {"recommendation", recommended.reasoning}};
    }
    document["stability"] = stability;
  }
  document["thresholds"] = {{"blow_up", "non-finite, failed solve, or |e| > 1e6 |e0| at any time"},
                            {"grows", "max |e| over the last tenth of the run > |e0|"},
                            {"decays", "max |e| over the last tenth < 1e-3 |e0|"},
                            {"bounded", "otherwise"},
                            {"run_length", "max(2 s, 400 steps) for the maps; 4000 steps for the limits"}};

  // 3. (dt, ω) maps, per integrator and model.
  if (flags.maps && !interrupted()) {
    std::printf("\nstability maps (%d x %d runs each):\n", flags.map_points, flags.map_points);
    const auto dts = logSpace(1e-3, 3e-2, flags.map_points);
    const auto omegas = logSpace(5.0, 3000.0, flags.map_points);
    for (Integrator integrator : kFixedStep) {
      for (const Model& model : models) {
        if (interrupted()) break;
        StabilityMapOptions options;
        options.integrator = integrator;
        options.dts = dts;
        options.omegas = omegas;
        options.parallel.threads = flags.threads;
        const auto cells = runStabilityMap(*model.system, model.start, options);
        const MapOutcome map = writeStabilityMap(dir, std::string(toString(integrator)), model.name,
                                                 baumgarteStabilityLimit(integrator, 1.0), cells);
        for (const std::string& line : map.lines) std::printf("  %s\n", line.c_str());
        outcome = worse(outcome, outcomeOf(map.plot));
        if (map.plot.status == PlotStatus::Failed && failure.empty()) failure = map.plot.note;
      }
    }
  }
  if (flags.trajectory && !interrupted()) {
    nlohmann::json trajectory = runTrajectory(dir, models, flags.threads);
    if (!trajectory.is_null()) document["trajectory"] = std::move(trajectory);  // null: interrupted in its first part
  }
  if (flags.adaptive_tuner_only && !interrupted()) {
    std::printf("\nThe tuner (recommendBaumgarteForModel, AdaptiveGainMode::Scan) on the first %g of each --adaptive case's run\n"
                "(omega = 10^((k + 0.25)/4), ensemble of 3%s; tuned = the middle of its band; runs and model calls it spent):\n",
                flags.adaptive_tuner_horizon,
                flags.adaptive_tuner_refine > 0
                    ? (", then " + std::to_string(flags.adaptive_tuner_refine) + " per decade around it, ensemble of 7").c_str()
                    : "");
    std::vector<std::string> lines;
    AdaptiveGainSettings settings;
    settings.threads = flags.threads;
    settings.tolerances = flags.adaptive_tolerances;
    settings.tuner_only = true;
    settings.tuner_horizon_fraction = flags.adaptive_tuner_horizon;
    settings.tuner_refine_per_decade = flags.adaptive_tuner_refine;
    document["adaptive_tuned"] = runAdaptiveGains(dir, settings, lines);
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  } else if (flags.adaptive && !interrupted()) {
    std::printf("\nBaumgarte gains of the adaptive integrators (rtol = atol; scd over 100 outputs vs ida_ggl 1e-12;\n"
                "work = model calls; smoothed best and band (within 0.1 digits) of scd - log10(work) over\n"
                "omega = 10^(k/8), 0.1 .. 1e4, on to 1e6 while the top run's work stays below 10x that of omega = 0;\n"
                "top = the grid's last omega; out = factor outside the band, - below, + above, 1 inside; scat = rms of\n"
                "each point about the smoothed curve near the top, sprd = rms spread of each point's ensemble,\n"
                "+- = standard error of loss)\n");
    std::vector<std::string> lines;
    AdaptiveGainSettings settings;
    settings.threads = flags.threads;
    settings.ensemble = flags.adaptive_ensemble;
    settings.tolerances = flags.adaptive_tolerances;
    settings.tuner_horizon_fraction = flags.adaptive_tuner_horizon;
    settings.tuner_refine_per_decade = flags.adaptive_tuner_refine;
    document["adaptive"] = runAdaptiveGains(dir, settings, lines);
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  }
  writeJson(dir, "errdyn.json", document);
  std::printf("\nresults: %s\n", dir.file("errdyn.json").c_str());
  if (interrupted()) outcome = RunOutcome::Interrupted;
  dir.finish(outcome, outcome == RunOutcome::Interrupted ? "interrupted by a signal; errdyn.json holds the parts finished" : failure);
  std::printf("manifest: %s (%s)\n", dir.file(kManifestName).c_str(), toString(outcome));
  return exitCodeFor(outcome);
}

/// The --adaptive-* flags tune scans that run only with --adaptive (the ensemble) or with
/// --adaptive or --adaptive-tuner-only (the others): given without them they would be ignored.
void requireAdaptiveFlagsApply(const CLI::App& app, const Flags& flags) {
  if (app.count("--adaptive-ensemble") > 0 && !flags.adaptive) {
    throw CLI::ValidationError("--adaptive-ensemble", "applies to --adaptive's full scan only");
  }
  for (const char* flag : {"--adaptive-tolerances", "--adaptive-tuner-horizon", "--adaptive-tuner-refine"}) {
    if (app.count(flag) > 0 && !flags.adaptive && !flags.adaptive_tuner_only) {
      throw CLI::ValidationError(flag, "applies to --adaptive or --adaptive-tuner-only, neither of which is given");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Baumgarte's error dynamics: closed form vs measured, and the stability limits of the "
               "fixed-step integrators (derived vs measured)",
               "kktdae-errdyn"};
  Flags flags;
  app.add_option("--out", flags.out, "write errdyn.json, the maps' CSV and PNGs here")->required();
  app.add_option("--rtol", flags.rtol, "CVODE tolerance for the continuous comparison")
      ->check(finiteInRange(1e-13, 1e-3))
      ->capture_default_str();
  app.add_option("--map-points", flags.map_points, "grid points per axis of each stability map")
      ->check(integerInRange(2, 60))
      ->capture_default_str();
  app.add_flag("--maps,!--no-maps", flags.maps, "draw the (dt, omega) stability maps");
  app.add_flag("--limits,!--no-limits", flags.limits, "measure the stability limits of dt*omega (the longest part)");
  app.add_flag("--trajectory", flags.trajectory,
               "also predict the limits from the trajectory and compare with bisected measurements, and check the "
               "soft constraints' decay (docs/baumgarte.md sections 5-7; several minutes)");
  app.add_flag("--adaptive", flags.adaptive,
               "also scan the Baumgarte gain of cvode_bdf, cvode_adams and ida_index1 over omega and tolerance on five models "
               "and compare the best with recommendBaumgarte (docs/baumgarte.md section 9; minutes)");
  app.add_option("--adaptive-ensemble", flags.adaptive_ensemble,
                 "--adaptive: runs per grid point at the tolerances tol*10^(0.05 k), averaged (odd; 1 = one run)")
      ->check(integerInRange(1, 15))
      ->check(CLI::Validator([](std::string& s) { return std::stoi(s) % 2 == 1 ? "" : "must be odd"; }, "ODD"))
      ->capture_default_str();
  app.add_flag("--adaptive-tuner-only", flags.adaptive_tuner_only,
               "instead of --adaptive's full scan, only recommendBaumgarteForModel's scan of each of its cases, on the "
               "first half of the run (adaptive_tuned.csv; minutes)");
  app.add_option("--adaptive-tuner-horizon", flags.adaptive_tuner_horizon,
                 "--adaptive, --adaptive-tuner-only: the part of each case's run the tuner scans, from its start "
                 "(0.5: the first half)")
      ->check(CLI::Range(1e-3, 1.0))
      ->capture_default_str();
  app.add_option("--adaptive-tuner-refine", flags.adaptive_tuner_refine,
                 "--adaptive, --adaptive-tuner-only: the tuner's second scan around its first band, gains per decade "
                 "(ensemble of 7, smoothing +-2; 0: none)")
      ->check(CLI::IsMember({0, 4, 8}))  // multiples of the coarse 4 per decade; finer ones would meet the full scan's gains
      ->capture_default_str();
  app.add_option("--adaptive-tolerances", flags.adaptive_tolerances, "--adaptive: rtol = atol of each scan")
      ->check(finiteInRange(1e-13, 1e-3))
      ->capture_default_str();
  app.add_option("--threads", flags.threads,
                 "threads for the independent runs (0: all cores); every output is the same for any count")
      ->check(integerInRange(0, kktdae::kMaxSweepThreads))
      ->capture_default_str();
  installInterruptHandlers();
  try {
    app.parse(argc, argv);
    requireAdaptiveFlagsApply(app, flags);
    return run(flags);
  } catch (const CLI::ParseError& error) {
    return usageExit(app, error);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-errdyn: error: %s\n", error.what());
    return kExitFailed;
  }
}

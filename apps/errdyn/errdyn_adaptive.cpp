#include "errdyn/errdyn_adaptive.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

#include "common/interrupt.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"
#include "kktdae/experiments/test_set.hpp"
#include "kktdae/kktdae.hpp"

namespace kktdae::apps {
namespace {

/// Outputs of every run and its reference: the score is the error over the whole path.
constexpr long kOutputs = 100;

struct OwnedProblem {
  std::shared_ptr<const ConstrainedSystem> system;
  AdaptiveGainProblem problem;
};

OwnedProblem onManifold(const std::string& name, std::shared_ptr<const ConstrainedSystem> system, State start,
                        double t_end) {
  OwnedProblem owned{system, {}};
  owned.problem.name = name;
  owned.problem.system = system.get();
  owned.problem.start = start;
  owned.problem.t_end = t_end;
  owned.problem.reference_path = adaptiveGainReferencePath(*system, start, t_end, kOutputs);
  return owned;
}

OwnedProblem testSet(const std::string& name, TestSetProblem which) {
  const TestSetCase c = makeTestSetCase(which);
  OwnedProblem owned{c.system, {}};
  owned.problem.name = name;
  owned.problem.system = c.system.get();
  owned.problem.start = c.start.state;
  owned.problem.t_end = c.reference.t_end;
  owned.problem.reference_path = adaptiveGainReferencePath(*c.system, c.start.state, c.reference.t_end, kOutputs,
                                                          c.reference.scored_components);
  return owned;
}

std::vector<OwnedProblem> adaptiveProblems() {
  std::vector<OwnedProblem> problems;
  auto chain = [](int links) { return std::make_shared<PendulumChain>(PendulumChainParams::uniform(links)); };
  const auto chain2 = chain(2), chain3 = chain(3);
  const auto circle = std::make_shared<CircleMass>();
  problems.push_back(onManifold("chain2", chain2, chain2->initialState(0.3), 2.0));
  problems.push_back(onManifold("chain3", chain3, chain3->initialState(0.3), 2.0));
  problems.push_back(onManifold("circle", circle, circle->initialState(1.0), 5.0));
  problems.push_back(testSet("andrews", TestSetProblem::Andrews));
  problems.push_back(testSet("caraxis", TestSetProblem::CarAxis));
  return problems;
}

/// The tuner's offset, in its quarter-decade steps: its gains 10^((2k + 0.5)/8) lie halfway
/// between the full scan's 10^(j/8), so that no run of the two coincides.
constexpr double kTunerGridOffset = 0.25;

double tunerHorizon(const OwnedProblem& owned, const AdaptiveGainSettings& settings) {
  return settings.tuner_horizon_fraction * (owned.problem.t_end - owned.problem.start.t);
}

/// What a user of recommendBaumgarteForModel's scan gets for one case: tuned on the first half
/// of the run (the tuner's own measuring run included), scored on the same coordinates.
ModelGuidance tuneCase(const OwnedProblem& owned, Integrator integrator, double tolerance, const AdaptiveGainSettings& settings) {
  ModelGuidanceOptions guidance;
  guidance.horizon = tunerHorizon(owned, settings);
  guidance.tolerance = tolerance;
  guidance.adaptive_mode = AdaptiveGainMode::Scan;
  guidance.tuner.grid_offset = kTunerGridOffset;
  guidance.tuner.outputs = kOutputs;
  guidance.tuner.scored_components = owned.problem.reference_path[0].size();
  guidance.tuner.parallel.threads = settings.threads;
  guidance.tuner.refine_per_decade = settings.tuner_refine_per_decade;
  return recommendBaumgarteForModel(*owned.problem.system, owned.problem.start, integrator, guidance.horizon,
                                    guidance);
}

const char* kTunedHeader =
    "model,integrator,tolerance,horizon,motion_rate,mean_step,rule_omega,tuned_used,tuned_omega,tuned_smoothed_best,"
    "tuned_band_low,tuned_band_high,grid_low,grid_high,grid_points,tuned_runs,tuned_model_calls,"
    "reference_model_calls,unstabilized_work,measuring_model_calls,refined,coarse_band_low,coarse_band_high\n";

/// One adaptive_tuned.csv row and its JSON.
std::string tunedRow(const OwnedProblem& owned, Integrator integrator, double tolerance, const ModelGuidance& g,
                     double horizon, nlohmann::json& json) {
  const AdaptiveGainTuning& t = g.tuning;
  // The whole span scanned: the coarse grid's (the refinement lies inside it), as grid_points counts both.
  const std::vector<double>& span = t.refined ? t.coarse.omegas : t.best.omegas;
  const bool scanned = !span.empty();
  const long unstabilized = t.scan_runs.empty() ? 0 : t.scan_runs.front().work;
  const long measuring = g.time_scale.summary.rhs_evaluations + g.time_scale.summary.newton_model_evaluations;
  json = {{"model", owned.problem.name}, {"integrator", toString(integrator)}, {"tolerance", tolerance},
          {"horizon", horizon}, {"motion_rate", g.time_scale.motion_rate}, {"mean_step", g.time_scale.mean_step},
          {"rule_omega", t.rule_omega}, {"tuned_used", t.used}, {"tuned_omega", g.recommendation.omega},
          {"tuned_smoothed_best", t.best.smoothed_best_omega}, {"tuned_band_low", t.best.band_low},
          {"tuned_band_high", t.best.band_high}, {"grid_low", scanned ? span.front() : 0.0},
          {"grid_high", scanned ? span.back() : 0.0}, {"grid_points", t.grid_points},
          {"tuned_runs", t.runs}, {"tuned_model_calls", t.model_calls},
          {"reference_model_calls", t.reference_model_calls}, {"unstabilized_work", unstabilized},
          {"measuring_model_calls", measuring}, {"refined", t.refined}, {"coarse_band_low", t.coarse.band_low},
          {"coarse_band_high", t.coarse.band_high}, {"reasoning", g.recommendation.reasoning}};
  return owned.problem.name + "," + std::string(toString(integrator)) + "," + shortest(tolerance) + "," +
         shortest(horizon) + "," + shortest(g.time_scale.motion_rate) + "," + shortest(g.time_scale.mean_step) + "," +
         shortest(t.rule_omega) + "," + (t.used ? "1" : "0") + "," + shortest(g.recommendation.omega) + "," +
         shortest(t.best.smoothed_best_omega) + "," + shortest(t.best.band_low) + "," + shortest(t.best.band_high) +
         "," + shortest(scanned ? span.front() : 0.0) + "," + shortest(scanned ? span.back() : 0.0) +
         "," + std::to_string(t.grid_points) + "," + std::to_string(t.runs) + "," + std::to_string(t.model_calls) +
         "," + std::to_string(t.reference_model_calls) + "," + std::to_string(unstabilized) + "," +
         std::to_string(measuring) + "," + (t.refined ? "1" : "0") + "," + shortest(t.coarse.band_low) + "," +
         shortest(t.coarse.band_high) + "\n";
}

std::string tunedLine(const OwnedProblem& owned, Integrator integrator, double tolerance, const ModelGuidance& g) {
  const AdaptiveGainTuning& t = g.tuning;
  char line[240];
  std::snprintf(line, sizeof line, "%-8s %-11s %6.0e %9.3g %9.3g %9.3g %9.3g %9.3g %5ld %8ld %s",
                owned.problem.name.c_str(), std::string(toString(integrator)).c_str(), tolerance, t.rule_omega,
                g.recommendation.omega, t.best.smoothed_best_omega, t.best.band_low, t.best.band_high, t.runs,
                t.model_calls, t.used ? "" : "(rule: the scan gave no gain)");
  return line;
}

std::string tunedHeaderLine() {
  char line[240];
  std::snprintf(line, sizeof line, "%-8s %-11s %6s %9s %9s %9s %9s %9s %5s %8s", "model", "integrator", "tol", "rule",
                "tuned", "t.smooth", "t.band lo", "t.band hi", "runs", "calls");
  return line;
}

/// --adaptive-tuner-only: the tuner for every case, no full scan.
nlohmann::json runTunerOnly(RunDirectory& dir, const AdaptiveGainSettings& settings, std::vector<std::string>& lines) {
  const std::vector<OwnedProblem> problems = adaptiveProblems();
  const std::vector<Integrator> integrators = {Integrator::CvodeBdf, Integrator::CvodeAdams, Integrator::IdaIndex1};
  std::string csv = kTunedHeader;
  nlohmann::json table = nlohmann::json::array();
  lines.push_back(tunedHeaderLine());
  for (const OwnedProblem& owned : problems) {
    for (Integrator integrator : integrators) {
      for (double tolerance : settings.tolerances) {
        if (interrupted()) break;
        const ModelGuidance g = tuneCase(owned, integrator, tolerance, settings);
        nlohmann::json row;
        csv += tunedRow(owned, integrator, tolerance, g, tunerHorizon(owned, settings), row);
        table.push_back(row);
        lines.push_back(tunedLine(owned, integrator, tolerance, g));
      }
    }
  }
  dir.write("adaptive_tuned.csv", csv);
  return table;
}

}  // namespace

std::vector<std::string> adaptiveGainFiles() { return {"adaptive_gains.csv", "adaptive_best.csv", "adaptive_tuned.csv"}; }

nlohmann::json runAdaptiveGains(RunDirectory& dir, const AdaptiveGainSettings& settings, std::vector<std::string>& lines) {
  if (settings.tuner_only) return runTunerOnly(dir, settings, lines);
  const std::vector<OwnedProblem> problems = adaptiveProblems();

  AdaptiveGainOptions options;
  options.integrators = {Integrator::CvodeBdf, Integrator::CvodeAdams, Integrator::IdaIndex1};
  for (int j = -8; j <= 32; ++j) options.omegas.push_back(std::pow(10.0, 0.125 * j));  // 0.1 .. 1e4, 8 per decade
  // A run that needs 20,000 steps takes several times the unstabilized runs' steps (the
  // adaptive_gains.csv steps column) and is far off the best; the cap keeps the stiff end of the
  // grid (cvode_adams at large omega) from costing minutes.
  options.max_steps = 20000;
  // Past 1e4 only where the top run's work is still within 10x of no feedback (ida_index1 on
  // Andrews' squeezer and the car axis): its best can lie there, and the work's rise ends it.
  options.extend_max_omega = 1e6;
  options.extend_work_factor = 10.0;
  // Each grid point is the mean of runs at nearby tolerances (τ·10^(±0.05 k)): one run's score
  // scatters by as much as the band is wide.
  options.ensemble_size = settings.ensemble;
  options.tolerances = settings.tolerances;
  options.parallel.threads = settings.threads;
  options.interrupt = interruptFlag();

  std::string runs_csv =
      "model,integrator,tolerance,omega,status,scd,end_scd,work,steps,efficiency,error_test_failures,"
      "convergence_failures,linear_solver_setups,max_phi,efficiency_spread\n";
  std::string best_csv =
      "model,integrator,tolerance,unstabilized_scd,unstabilized_work,unstabilized_mean_step,motion_rate,best_omega,"
      "smoothed_best_omega,band_low,band_high,best_scd,best_work,recommended_omega,ratio,side,outside_factor,"
      "efficiency_loss,grid_top,scatter,ensemble_spread,loss_error,tuned_omega,tuned_ratio,tuned_side,"
      "tuned_outside_factor,tuned_loss,tuned_loss_error,tuned_model_calls,tuned_cost\n";
  std::string tuned_csv = kTunedHeader;
  std::vector<std::string> tuned_lines = {tunedHeaderLine()};
  nlohmann::json table = nlohmann::json::array();
  char line[320];
  std::snprintf(line, sizeof line, "%-8s %-11s %6s %7s %7s %9s %7s %8s %8s %8s %8s %6s %7s %9s %6s %5s %5s %8s %5s %5s %5s", "model",
                "integrator", "tol", "scd(0)", "work(0)", "h_mean(0)", "Omega", "raw best", "smooth", "band lo",
                "band hi", "scd", "work", "recommend", "ratio", "out", "loss", "top", "scat", "sprd", "+-");
  lines.push_back(line);
  for (const OwnedProblem& owned : problems) {
    if (interrupted()) break;
    const AdaptiveGainScan scan = scanAdaptiveGains(owned.problem, options);
    if (interrupted()) break;  // its runs ended at the signal: a partial scan is not a result
    for (const AdaptiveGainRun& run : scan.runs) {
      runs_csv += owned.problem.name + "," + std::string(toString(run.integrator)) + "," + shortest(run.tolerance) +
                  "," + shortest(run.omega) + "," + std::string(toString(run.summary.status)) + "," +
                  shortest(run.scd) + "," + shortest(run.end_scd) + "," + std::to_string(run.work) + "," +
                  std::to_string(run.summary.steps) + "," + shortest(run.efficiency) + "," +
                  std::to_string(run.summary.error_test_failures) + "," +
                  std::to_string(run.summary.convergence_failures) + "," +
                  std::to_string(run.summary.linear_solver_setups) + "," + shortest(run.summary.max_phi_inf) + "," +
                  shortest(run.efficiency_spread) + "\n";
    }
    for (const AdaptiveGainBest& best : scan.best) {
      // What a user gets: the recommendation from one measuring run at this tolerance.
      ModelGuidanceOptions guidance;
      guidance.horizon = owned.problem.t_end - owned.problem.start.t;
      guidance.tolerance = best.tolerance;
      const ModelGuidance recommended = recommendBaumgarteForModel(*owned.problem.system, owned.problem.start,
                                                                   best.integrator, guidance.horizon, guidance);
      const double omega = recommended.recommendation.omega;
      const AdaptiveGainPlacement place = placeInBand(best, omega);
      // The scd and work of the grid point nearest the smoothed best (in log omega).
      std::size_t nearest = 0;
      for (std::size_t j = 1; j < best.omegas.size(); ++j) {
        if (std::abs(std::log(best.omegas[j] / best.smoothed_best_omega)) <
            std::abs(std::log(best.omegas[nearest] / best.smoothed_best_omega))) {
          nearest = j;
        }
      }
      const AdaptiveGainRun& at_best = scan.runs[best.first_run + 1 + nearest];
      // The tuner's gain (the rule's where its scan gave none), placed in this scan's band;
      // its cost in units of this scan's unstabilized run over the whole horizon.
      const ModelGuidance tuned = tuneCase(owned, best.integrator, best.tolerance, settings);
      const double tuned_omega = tuned.recommendation.omega;
      const AdaptiveGainPlacement tuned_place = placeInBand(best, tuned_omega);
      const double tuned_cost = static_cast<double>(tuned.tuning.model_calls) /
                                static_cast<double>(std::max(1L, best.unstabilized.work));
      nlohmann::json tuned_json;
      tuned_csv += tunedRow(owned, best.integrator, best.tolerance, tuned, tunerHorizon(owned, settings), tuned_json);
      tuned_lines.push_back(tunedLine(owned, best.integrator, best.tolerance, tuned));
      best_csv += owned.problem.name + "," + std::string(toString(best.integrator)) + "," + shortest(best.tolerance) +
                  "," + shortest(best.unstabilized.scd) + "," + std::to_string(best.unstabilized.work) + "," +
                  shortest(best.unstabilized_mean_step) + "," + shortest(recommended.time_scale.motion_rate) + "," +
                  shortest(best.best_omega) + "," + shortest(best.smoothed_best_omega) + "," +
                  shortest(best.band_low) + "," + shortest(best.band_high) + "," + shortest(at_best.scd) + "," +
                  std::to_string(at_best.work) + "," + shortest(omega) + "," + shortest(place.ratio) + "," +
                  std::to_string(place.side) + "," + shortest(place.outside_factor) + "," +
                  shortest(place.loss) + "," + shortest(best.omegas.back()) + "," + shortest(best.scatter) + "," +
                  shortest(best.ensemble_spread) + "," + shortest(place.loss_error) + "," + shortest(tuned_omega) +
                  "," + shortest(tuned_place.ratio) + "," + std::to_string(tuned_place.side) + "," +
                  shortest(tuned_place.outside_factor) + "," + shortest(tuned_place.loss) + "," +
                  shortest(tuned_place.loss_error) + "," + std::to_string(tuned.tuning.model_calls) + "," +
                  shortest(tuned_cost) + "\n";
      std::snprintf(line, sizeof line,
                    "%-8s %-11s %6.0e %7.2f %7ld %9.2e %7.3g %8.3g %8.3g %8.3g %8.3g %6.2f %7ld %9.3g %6.2f %5.2f "
                    "%5.2f %8.3g %5.2f %5.2f %5.2f",
                    owned.problem.name.c_str(), std::string(toString(best.integrator)).c_str(), best.tolerance,
                    best.unstabilized.scd, best.unstabilized.work, best.unstabilized_mean_step,
                    recommended.time_scale.motion_rate, best.best_omega, best.smoothed_best_omega, best.band_low,
                    best.band_high, at_best.scd, at_best.work, omega, place.ratio,
                    place.side == 0 ? 1.0 : place.side * place.outside_factor, place.loss, best.omegas.back(), best.scatter,
                    best.ensemble_spread, place.loss_error);
      lines.push_back(line);
      table.push_back({{"model", owned.problem.name}, {"integrator", toString(best.integrator)},
                       {"tolerance", best.tolerance}, {"unstabilized_scd", metricNumber(best.unstabilized.scd)},
                       {"unstabilized_work", best.unstabilized.work},
                       {"unstabilized_mean_step", best.unstabilized_mean_step},
                       {"motion_rate", recommended.time_scale.motion_rate}, {"best_omega", best.best_omega},
                       {"smoothed_best_omega", best.smoothed_best_omega}, {"band_low", best.band_low},
                       {"band_high", best.band_high}, {"best_scd", metricNumber(at_best.scd)},
                       {"best_work", at_best.work}, {"recommended_omega", omega}, {"ratio", place.ratio},
                       {"side", place.side}, {"outside_factor", place.outside_factor},
                       {"efficiency_loss", metricNumber(place.loss)}, {"grid_top", best.omegas.back()},
                       {"scatter", best.scatter}, {"ensemble_spread", best.ensemble_spread},
                       {"loss_error", place.loss_error},
                       {"reasoning", recommended.recommendation.reasoning},
                       {"tuned_omega", tuned_omega}, {"tuned_ratio", tuned_place.ratio},
                       {"tuned_side", tuned_place.side}, {"tuned_outside_factor", tuned_place.outside_factor},
                       {"tuned_loss", metricNumber(tuned_place.loss)}, {"tuned_loss_error", tuned_place.loss_error},
                       {"tuned_model_calls", tuned.tuning.model_calls}, {"tuned_cost", tuned_cost},
                       {"tuned", tuned_json}});
    }
  }
  dir.write("adaptive_gains.csv", runs_csv);
  dir.write("adaptive_best.csv", best_csv);
  dir.write("adaptive_tuned.csv", tuned_csv);
  lines.push_back("");
  lines.push_back("the tuner (recommendBaumgarteForModel, AdaptiveGainMode::Scan) on the first " +
                  shortest(settings.tuner_horizon_fraction) + " of each run:");
  lines.insert(lines.end(), tuned_lines.begin(), tuned_lines.end());
  return table;
}

}  // namespace kktdae::apps

#include "errdyn/errdyn_adaptive.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

#include "common/json_output.hpp"
#include "common/number_format.hpp"
#include "kktdae/experiments/test_set.hpp"
#include "kktdae/kktdae.hpp"

namespace kktdae::apps {
namespace {

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
  owned.problem.reference_q = adaptiveGainReference(*system, start, t_end);
  return owned;
}

OwnedProblem testSet(const std::string& name, TestSetProblem which) {
  const TestSetCase c = makeTestSetCase(which);
  OwnedProblem owned{c.system, {}};
  owned.problem.name = name;
  owned.problem.system = c.system.get();
  owned.problem.start = c.start.state;
  owned.problem.t_end = c.reference.t_end;
  owned.problem.reference_q = c.reference.q.head(c.reference.scored_components);
  return owned;
}

}  // namespace

std::vector<std::string> adaptiveGainFiles() { return {"adaptive_gains.csv", "adaptive_best.csv"}; }

nlohmann::json runAdaptiveGains(RunDirectory& dir, int threads, std::vector<std::string>& lines) {
  std::vector<OwnedProblem> problems;
  auto chain = [](int links) { return std::make_shared<PendulumChain>(PendulumChainParams::uniform(links)); };
  const auto chain2 = chain(2), chain3 = chain(3);
  const auto circle = std::make_shared<CircleMass>();
  problems.push_back(onManifold("chain2", chain2, chain2->initialState(0.3), 2.0));
  problems.push_back(onManifold("chain3", chain3, chain3->initialState(0.3), 2.0));
  problems.push_back(onManifold("circle", circle, circle->initialState(1.0), 5.0));
  problems.push_back(testSet("andrews", TestSetProblem::Andrews));
  problems.push_back(testSet("caraxis", TestSetProblem::CarAxis));

  AdaptiveGainOptions options;
  for (int j = -4; j <= 24; ++j) options.omegas.push_back(std::pow(10.0, 0.25 * j));
  options.parallel.threads = threads;

  std::string runs_csv = "model,integrator,tolerance,omega,status,scd,work,steps,efficiency\n";
  std::string best_csv =
      "model,integrator,tolerance,unstabilized_scd,unstabilized_work,unstabilized_mean_step,motion_rate,best_omega,"
      "best_scd,best_work,near_best_low,near_best_high,smoothed_best_omega,recommended_omega,ratio,"
      "efficiency_loss\n";
  nlohmann::json table = nlohmann::json::array();
  char line[320];
  std::snprintf(line, sizeof line, "%-8s %-10s %6s %7s %7s %9s %7s %8s %6s %7s %8s %8s %8s %9s %6s %5s", "model",
                "integrator", "tol", "scd(0)", "work(0)", "h_mean(0)", "Omega", "best w", "scd", "work", "flat lo",
                "flat hi", "smooth", "recommend", "ratio", "loss");
  lines.push_back(line);
  for (const OwnedProblem& owned : problems) {
    const AdaptiveGainScan scan = scanAdaptiveGains(owned.problem, options);
    for (const AdaptiveGainRun& run : scan.runs) {
      runs_csv += owned.problem.name + "," + std::string(toString(run.integrator)) + "," + shortest(run.tolerance) +
                  "," + shortest(run.omega) + "," + std::string(toString(run.summary.status)) + "," +
                  shortest(run.scd) + "," + std::to_string(run.work) + "," + std::to_string(run.summary.steps) + "," +
                  shortest(run.efficiency) + "\n";
    }
    for (const AdaptiveGainBest& best : scan.best) {
      // What a user gets: the recommendation from one measuring run at this tolerance.
      ModelGuidanceOptions guidance;
      guidance.horizon = owned.problem.t_end - owned.problem.start.t;
      guidance.tolerance = best.tolerance;
      const ModelGuidance recommended = recommendBaumgarteForModel(*owned.problem.system, owned.problem.start,
                                                                   best.integrator, guidance.horizon, guidance);
      const double omega = recommended.recommendation.omega;
      // The smoothed efficiency at the grid point nearest the recommendation (in log ω).
      std::size_t nearest = 0;
      for (std::size_t j = 1; j < options.omegas.size(); ++j) {
        if (std::abs(std::log(options.omegas[j] / omega)) < std::abs(std::log(options.omegas[nearest] / omega))) {
          nearest = j;
        }
      }
      const double loss = best.smoothed_best_efficiency - best.smoothed_efficiency[nearest];
      const double ratio = omega / best.smoothed_best_omega;
      best_csv += owned.problem.name + "," + std::string(toString(best.integrator)) + "," + shortest(best.tolerance) +
                  "," + shortest(best.unstabilized.scd) + "," + std::to_string(best.unstabilized.work) + "," +
                  shortest(best.unstabilized_mean_step) + "," + shortest(recommended.time_scale.motion_rate) + "," +
                  shortest(best.best_omega) + "," + shortest(best.best.scd) + "," + std::to_string(best.best.work) +
                  "," + shortest(best.near_best_low) + "," + shortest(best.near_best_high) + "," +
                  shortest(best.smoothed_best_omega) + "," + shortest(omega) + "," + shortest(ratio) + "," +
                  shortest(loss) + "\n";
      std::snprintf(line, sizeof line,
                    "%-8s %-10s %6.0e %7.2f %7ld %9.2e %7.3g %8.3g %6.2f %7ld %8.3g %8.3g %8.3g %9.3g %6.2f %5.2f",
                    owned.problem.name.c_str(), std::string(toString(best.integrator)).c_str(), best.tolerance,
                    best.unstabilized.scd, best.unstabilized.work, best.unstabilized_mean_step,
                    recommended.time_scale.motion_rate, best.best_omega, best.best.scd, best.best.work,
                    best.near_best_low, best.near_best_high, best.smoothed_best_omega, omega, ratio, loss);
      lines.push_back(line);
      table.push_back({{"model", owned.problem.name}, {"integrator", toString(best.integrator)},
                       {"tolerance", best.tolerance}, {"unstabilized_scd", metricNumber(best.unstabilized.scd)},
                       {"unstabilized_work", best.unstabilized.work},
                       {"unstabilized_mean_step", best.unstabilized_mean_step},
                       {"motion_rate", recommended.time_scale.motion_rate}, {"best_omega", best.best_omega},
                       {"best_scd", metricNumber(best.best.scd)}, {"best_work", best.best.work},
                       {"near_best_low", best.near_best_low}, {"near_best_high", best.near_best_high},
                       {"smoothed_best_omega", best.smoothed_best_omega}, {"recommended_omega", omega},
                       {"ratio", ratio}, {"efficiency_loss", metricNumber(loss)},
                       {"reasoning", recommended.recommendation.reasoning}});
    }
  }
  dir.write("adaptive_gains.csv", runs_csv);
  dir.write("adaptive_best.csv", best_csv);
  return table;
}

}  // namespace kktdae::apps

// The adaptive gain measured on the model (experiments/adaptive_gain_tuner.hpp) and its use by
// recommendBaumgarteForModel in AdaptiveGainMode::Scan (docs/baumgarte.md §9, "Measured gains").
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/experiments/test_set.hpp"
#include "kktdae/kktdae.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

/// The small case: the double pendulum from tilt 0.3, cvode_bdf at 1e-5 over 1 s.
ModelGuidanceOptions scanOptions(int threads) {
  ModelGuidanceOptions options;
  options.horizon = 1.0;
  options.tolerance = 1e-5;
  options.adaptive_mode = AdaptiveGainMode::Scan;
  options.tuner.parallel.threads = threads;
  return options;
}

long sumOfWork(const std::vector<AdaptiveGainRun>& runs) {
  long sum = 0;
  for (const AdaptiveGainRun& run : runs) {
    for (long work : run.member_work) sum += work;
  }
  return sum;
}

}  // namespace

TEST_CASE("adaptive gain tuner: scan mode on the double pendulum recommends the middle of its own band, and "
          "accounts for every run",
          "[experiments][tuner]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  const ModelGuidance g = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, scanOptions(2));
  const AdaptiveGainTuning& t = g.tuning;
  REQUIRE(t.used);
  const AdaptiveGainBest& best = t.best;

  // The grid: quarter decades from min(Omega, 1/h)/10 to max(Omega, 1/h)*3, perhaps extended.
  const double omega_motion = g.time_scale.motion_rate, inverse_step = 1.0 / g.time_scale.mean_step;
  REQUIRE(best.omegas.size() >= 3);
  CHECK(best.omegas.front() >= 0.1 * std::min(omega_motion, inverse_step));
  CHECK(best.omegas.front() < 0.1 * std::pow(10.0, 0.25) * std::min(omega_motion, inverse_step));
  CHECK(best.omegas.back() >= 3.0 * std::max(omega_motion, inverse_step) / std::pow(10.0, 0.25));
  for (std::size_t j = 1; j < best.omegas.size(); ++j) {
    CHECK(best.omegas[j] / best.omegas[j - 1] == Approx(std::pow(10.0, 0.25)).epsilon(1e-12));
  }
  CHECK(t.grid_points == static_cast<long>(best.omegas.size()));

  // The recommendation: the band's geometric middle, inside the band and the grid; the smoothed
  // best inside the band too.
  CHECK(t.omega == std::sqrt(best.band_low * best.band_high));
  CHECK(best.band_low <= t.omega);
  CHECK(t.omega <= best.band_high);
  CHECK(best.band_low <= best.smoothed_best_omega);
  CHECK(best.smoothed_best_omega <= best.band_high);
  CHECK(best.band_low >= best.omegas.front());
  CHECK(best.band_high <= best.omegas.back());
  const AdaptiveGainPlacement own = placeInBand(best, t.omega);
  CHECK(own.side == 0);
  CHECK(own.loss <= 0.1 + 1e-12);  // the band is cut at 0.1 digits; the middle interpolates inside it
  // Feedback pays on this case: the band's curve beats no feedback per unit of work.
  CHECK(best.smoothed_best_efficiency > t.scan_runs.front().efficiency + 0.1);

  // What the recommendation carries, and the rule beside it.
  CHECK(g.recommendation.omega == t.omega);
  CHECK(g.recommendation.stabilization.alpha == Approx(t.omega));
  CHECK(g.recommendation.stabilization.beta == Approx(t.omega));
  CHECK_THAT(g.recommendation.reasoning, Contains("measured on the model") && Contains("band"));
  ModelGuidanceOptions rule_options = scanOptions(1);
  rule_options.adaptive_mode = AdaptiveGainMode::Rule;
  const ModelGuidance rule = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, rule_options);
  CHECK(t.rule_omega == rule.recommendation.omega);
  CHECK_FALSE(rule.tuning.used);
  CHECK(rule.tuning.runs == 0);
  CHECK(rule.tuning.model_calls == 0);

  // Every run counted: the reference plus each ensemble member of ω = 0 and of every gain.
  REQUIRE(t.scan_runs.size() == best.omegas.size() + 1);
  for (const AdaptiveGainRun& run : t.scan_runs) CHECK(run.member_work.size() == 3);
  CHECK(t.runs == 1 + 3 * static_cast<long>(t.scan_runs.size()));
  CHECK(t.reference_model_calls > 0);
  CHECK(t.model_calls == t.reference_model_calls + sumOfWork(t.scan_runs));
  for (const AdaptiveGainRun& run : t.scan_runs) CHECK(run.work == run.member_work[1]);  // the centre member's
  CHECK(t.reference_tolerance == 1e-12);  // min(1e-12, 1e-3 * 1e-5)
}

TEST_CASE("adaptive gain tuner: the same bytes for one thread and two", "[experiments][tuner]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  const ModelGuidance one = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, scanOptions(1));
  const ModelGuidance two = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, scanOptions(2));
  REQUIRE(one.tuning.used);
  CHECK(one.tuning.omega == two.tuning.omega);
  CHECK(one.tuning.best.smoothed_efficiency == two.tuning.best.smoothed_efficiency);
  CHECK(one.tuning.best.smoothed_error == two.tuning.best.smoothed_error);
  CHECK(one.tuning.best.omegas == two.tuning.best.omegas);
  CHECK(one.tuning.model_calls == two.tuning.model_calls);
  CHECK(one.tuning.runs == two.tuning.runs);
  CHECK(one.recommendation.reasoning == two.recommendation.reasoning);
}

TEST_CASE("adaptive gain tuner: the grid's gains, and invalid options named with their values", "[experiments][tuner]") {
  AdaptiveGainTunerOptions options;
  options.grid_offset = 0.25;
  // Omega = 4, 1/h = 50: from 0.4 to 150, at 10^((k + 0.25)/4).
  const std::vector<double> grid = adaptiveGainTunerGrid(4.0, 0.02, options);
  REQUIRE(grid.size() >= 2);
  CHECK(grid.front() >= 0.4);
  CHECK(grid.front() / std::pow(10.0, 0.25) < 0.4);
  CHECK(grid.back() <= 150.0);
  CHECK(grid.back() * std::pow(10.0, 0.25) > 150.0);
  for (double omega : grid) {
    const double k = std::log10(omega) * 4.0 - 0.25;
    CHECK(std::abs(k - std::round(k)) < 1e-9);  // on the offset grid, none on the full scan's 10^(j/8)
  }
  CHECK_THROWS_WITH(adaptiveGainTunerGrid(0.0, 0.02, options), Contains("motion_rate"));
  CHECK_THROWS_WITH(adaptiveGainTunerGrid(4.0, -1.0, options), Contains("mean_step"));

  auto refused = [](auto change, const char* name, const char* value) {
    ModelGuidanceOptions guidance;
    guidance.adaptive_mode = AdaptiveGainMode::Scan;
    change(guidance.tuner);
    CHECK_THROWS_AS(guidance.validate(), std::invalid_argument);
    CHECK_THROWS_WITH(guidance.validate(), Contains(name) && Contains(value));
  };
  refused([](AdaptiveGainTunerOptions& o) { o.per_decade = 0; }, "per_decade", "0");
  refused([](AdaptiveGainTunerOptions& o) { o.grid_offset = 1.0; }, "grid_offset", "1");
  refused([](AdaptiveGainTunerOptions& o) { o.low_factor = 5.0; }, "low_factor", "5");
  refused([](AdaptiveGainTunerOptions& o) { o.extend_factor = 0.5; }, "extend_factor", "0.5");
  refused([](AdaptiveGainTunerOptions& o) { o.extend_work_factor = 1.0; }, "extend_work_factor", "1");
  refused([](AdaptiveGainTunerOptions& o) { o.ensemble_size = 2; }, "ensemble_size", "2");
  refused([](AdaptiveGainTunerOptions& o) { o.smoothing_half_width = -1; }, "smoothing_half_width", "-1");
  refused([](AdaptiveGainTunerOptions& o) { o.band_tolerance = 0.0; }, "band_tolerance", "0");
  refused([](AdaptiveGainTunerOptions& o) { o.outputs = 0; }, "outputs", "0");
  refused([](AdaptiveGainTunerOptions& o) { o.reference_tolerance = -1e-12; }, "reference_tolerance", "-1e-12");
  refused([](AdaptiveGainTunerOptions& o) { o.max_steps_factor = 0; }, "max_steps_factor", "0");

  const PendulumChain chain(PendulumChainParams::uniform(2));
  const MotionTimeScale none;
  CHECK_THROWS_WITH(tuneAdaptiveGain(chain, chain.initialState(0.3), Integrator::IdaGgl, 1e-6, 1.0, 1.0, none),
                    Contains("ida_ggl"));
  CHECK_THROWS_WITH(tuneAdaptiveGain(chain, chain.initialState(0.3), Integrator::CvodeBdf, 1e-6, -1.0, 1.0, none),
                    Contains("horizon"));
  // A measuring run that did not run gives nothing to centre the grid on: no gain, and why.
  const AdaptiveGainTuning fell = tuneAdaptiveGain(chain, chain.initialState(0.3), Integrator::CvodeBdf, 1e-6, 1.0, 1.0, none);
  CHECK_FALSE(fell.used);
  CHECK(fell.runs == 0);
  CHECK_THAT(fell.message, Contains("measuring run"));
}

TEST_CASE("adaptive gain tuner: a reference ida_ggl cannot reach is retried once looser, and one given fails over to "
          "the rule",
          "[experiments][tuner]") {
  // Andrews' squeezer over its 0.03 s at 1e-10: ida_ggl fails at min(1e-12, 1e-3 tau) = 1e-13.
  const TestSetCase c = makeTestSetCase(TestSetProblem::Andrews);
  ModelGuidanceOptions options;
  options.horizon = c.reference.t_end - c.start.state.t;
  options.tolerance = 1e-10;
  options.adaptive_mode = AdaptiveGainMode::Scan;
  options.tuner.scored_components = c.reference.scored_components;
  options.tuner.parallel.threads = 2;
  const ModelGuidance retried = recommendBaumgarteForModel(*c.system, c.start.state, Integrator::CvodeBdf, 0.01, options);
  REQUIRE(retried.tuning.used);
  CHECK(retried.tuning.reference_tolerance == Approx(1e-12).epsilon(1e-12));
  CHECK(retried.tuning.runs == 2 + 3 * static_cast<long>(retried.tuning.scan_runs.size()));
  CHECK(retried.tuning.model_calls == retried.tuning.reference_model_calls + sumOfWork(retried.tuning.scan_runs));

  options.tuner.reference_tolerance = 1e-13;  // given: no retry
  const ModelGuidance fell = recommendBaumgarteForModel(*c.system, c.start.state, Integrator::CvodeBdf, 0.01, options);
  CHECK_FALSE(fell.tuning.used);
  CHECK(fell.tuning.runs == 1);
  CHECK(fell.tuning.reference_model_calls > 0);
  CHECK_THAT(fell.tuning.message, Contains("no reference path") && Contains("1e-13"));
  CHECK(fell.recommendation.omega == fell.tuning.rule_omega);
  CHECK(fell.recommendation.omega == Approx(fell.time_scale.motion_rate));  // cvode_bdf's rule: omega = Omega
  CHECK_THAT(fell.recommendation.reasoning, Contains("the scan gave no gain"));
}

// The adaptive gain measured on the model (experiments/adaptive_gain_tuner.hpp) and its use by
// recommendBaumgarteForModel in AdaptiveGainMode::Scan (docs/notes/baumgarte-adaptive-gains.md, "Measured gains").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kktdae/experiments/test_set.hpp"
#include "kktdae/kktdae.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

/// The small case: the double pendulum from tilt 0.3, cvode_bdf at 1e-5 over 1 s, the tuner's
/// defaults (the refinement included).
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
  ModelGuidanceOptions coarse_only = scanOptions(2);
  coarse_only.tuner.refine_per_decade = 0;  // the coarse scan alone: its gain is its own band's middle
  const ModelGuidance g = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, coarse_only);
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
  REQUIRE(one.tuning.refined);
  REQUIRE(two.tuning.refined);
  CHECK(one.tuning.coarse.smoothed_efficiency == two.tuning.coarse.smoothed_efficiency);
  CHECK(one.tuning.coarse_runs.size() == two.tuning.coarse_runs.size());
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
  refused([](AdaptiveGainTunerOptions& o) { o.refine_per_decade = -8; }, "refine_per_decade", "-8");
  refused([](AdaptiveGainTunerOptions& o) { o.refine_per_decade = 6; }, "refine_per_decade", "6");
  refused([](AdaptiveGainTunerOptions& o) { o.refine_ensemble_size = 4; }, "refine_ensemble_size", "4");
  refused([](AdaptiveGainTunerOptions& o) { o.refine_smoothing_half_width = -2; }, "refine_smoothing_half_width", "-2");
  refused([](AdaptiveGainTunerOptions& o) { o.refine_candidate_tolerance = 0.05; }, "refine_candidate_tolerance",
          "0.05");
  refused([](AdaptiveGainTunerOptions& o) { o.refine_margin = -0.25; }, "refine_margin", "-0.25");

  // A band wider than the refinement's candidates is refused only while the refinement is on.
  AdaptiveGainTunerOptions wide_band;
  wide_band.band_tolerance = 0.5;
  CHECK_THROWS_WITH(wide_band.validate(), Contains("refine_candidate_tolerance") && Contains("0.5"));
  wide_band.refine_per_decade = 0;
  CHECK_NOTHROW(wide_band.validate());

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
  REQUIRE(retried.tuning.refined);
  CHECK(retried.tuning.runs == 2 + 3 * static_cast<long>(retried.tuning.coarse_runs.size()) +
                                   7 * static_cast<long>(retried.tuning.scan_runs.size()));
  CHECK(retried.tuning.model_calls == retried.tuning.reference_model_calls + sumOfWork(retried.tuning.coarse_runs) +
                                          sumOfWork(retried.tuning.scan_runs));

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

namespace {

/// A coarse scan by hand: quarter decades 10^((k + 0.25)/4), k = 0 … 11, smoothed values given.
AdaptiveGainBest handMadeCoarse(const std::vector<double>& smoothed) {
  AdaptiveGainBest coarse;
  for (std::size_t k = 0; k < smoothed.size(); ++k) coarse.omegas.push_back(std::pow(10.0, (k + 0.25) / 4.0));
  coarse.smoothed_efficiency = smoothed;
  coarse.smoothed_best_efficiency = *std::max_element(smoothed.begin(), smoothed.end());
  return coarse;
}

}  // namespace

TEST_CASE("adaptive gain tuner: the refinement's grid spans every coarse candidate, a second peak beyond a dip "
          "included, within the coarse grid",
          "[experiments][tuner]") {
  AdaptiveGainTunerOptions options;
  options.grid_offset = 0.25;
  options.refine_per_decade = 8;
  // Best at k = 3 (-1.0); k = 8 (-1.2) is a second peak within 0.3 digits beyond a dip (k = 5..7),
  // k = 2 (-1.35) is not a candidate.
  const AdaptiveGainBest coarse =
      handMadeCoarse({-2.0, -1.8, -1.35, -1.0, -1.05, -1.5, -1.6, -1.5, -1.2, -1.4, -1.8, -2.0});
  const std::vector<double> grid = adaptiveGainRefineGrid(coarse, options);
  REQUIRE(grid.size() >= 2);
  // From coarse gain 3 down a quarter decade (refine_margin) to coarse gain 8 up a quarter decade:
  // 10^((3 + 0.25)/4 - 0.25) ... 10^((8 + 0.25)/4 + 0.25), eighth decades in between.
  CHECK(grid.front() == Approx(std::pow(10.0, (2 + 0.25) / 4.0)).epsilon(1e-12));
  CHECK(grid.back() == Approx(std::pow(10.0, (9 + 0.25) / 4.0)).epsilon(1e-12));
  CHECK(grid.size() == 15);
  for (std::size_t j = 1; j < grid.size(); ++j) CHECK(grid[j] / grid[j - 1] == Approx(std::pow(10.0, 0.125)));
  // The coarse grid's offset in decades: every other refined gain is a coarse one, and none lies on
  // the full scan's 10^(j/8).
  for (double omega : grid) {
    const double j = std::log10(omega) * 8.0;
    CHECK(std::abs(j - std::floor(j) - 0.5) < 1e-9);
  }
  for (std::size_t i = 0; i < grid.size(); i += 2) CHECK(grid[i] == Approx(coarse.omegas[2 + i / 2]).epsilon(1e-12));
  // Only the contiguous band's neighbourhood once the second peak drops out of the candidates.
  AdaptiveGainTunerOptions tight = options;
  tight.refine_candidate_tolerance = 0.1;
  const std::vector<double> band_only = adaptiveGainRefineGrid(coarse, tight);
  REQUIRE(!band_only.empty());
  CHECK(band_only.front() == Approx(grid.front()));
  CHECK(band_only.back() == Approx(std::pow(10.0, (5 + 0.25) / 4.0)).epsilon(1e-12));  // gain 4 + a quarter decade
  // Inside the coarse grid: a best at its top end is not widened past it.
  const AdaptiveGainBest at_top = handMadeCoarse({-3.0, -2.9, -2.8, -2.6, -2.4, -2.2, -2.0, -1.8, -1.6, -1.4, -1.2, -1.0});
  const std::vector<double> top = adaptiveGainRefineGrid(at_top, options);
  REQUIRE(!top.empty());
  CHECK(top.back() == Approx(at_top.omegas.back()).epsilon(1e-12));
  CHECK(top.front() == Approx(std::pow(10.0, (9 + 0.25) / 4.0)).epsilon(1e-12));
  // Inside the coarse grid at its low end too; a failed coarse point (-inf) between two peaks is no
  // candidate but does not cut the span.
  const AdaptiveGainBest at_bottom =
      handMadeCoarse({-1.0, -1.1, -2.0, -std::numeric_limits<double>::infinity(), -1.2, -2.0, -2.2, -2.4, -2.6, -2.8,
                      -3.0, -3.2});
  const std::vector<double> bottom = adaptiveGainRefineGrid(at_bottom, options);
  REQUIRE(!bottom.empty());
  CHECK(bottom.front() == Approx(at_bottom.omegas.front()).epsilon(1e-12));
  CHECK(bottom.back() == Approx(std::pow(10.0, (5 + 0.25) / 4.0)).epsilon(1e-12));  // gain 4 + a quarter decade
  // No margin around a single candidate: one gain, which the tuner does not refine.
  AdaptiveGainTunerOptions no_margin = tight;
  no_margin.refine_margin = 0.0;
  const AdaptiveGainBest single = handMadeCoarse({-2.0, -1.8, -1.5, -1.0, -1.5, -1.8, -2.0, -2.2, -2.4, -2.6, -2.8, -3.0});
  CHECK(adaptiveGainRefineGrid(single, no_margin).size() == 1);
  // Nothing to refine: no refinement asked for, or no usable coarse point.
  AdaptiveGainTunerOptions off = options;
  off.refine_per_decade = 0;
  CHECK(adaptiveGainRefineGrid(coarse, off).empty());
  AdaptiveGainBest failed = coarse;
  failed.smoothed_best_efficiency = -std::numeric_limits<double>::infinity();
  CHECK(adaptiveGainRefineGrid(failed, options).empty());
  AdaptiveGainBest mismatched = coarse;
  mismatched.smoothed_efficiency.pop_back();
  CHECK_THROWS_WITH(adaptiveGainRefineGrid(mismatched, options), Contains("coarse") && Contains("11") && Contains("12"));
}

TEST_CASE("adaptive gain tuner: the refinement rescans the coarse candidates at eight per decade with an ensemble "
          "of 7, recommends the middle of its band, and accounts for both scans",
          "[experiments][tuner]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  const ModelGuidanceOptions options = scanOptions(2);
  REQUIRE(options.tuner.refine_per_decade == 8);  // the default
  const ModelGuidance g = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, options);
  const AdaptiveGainTuning& t = g.tuning;
  REQUIRE(t.used);
  REQUIRE(t.refined);
  const AdaptiveGainBest& coarse = t.coarse;
  const AdaptiveGainBest& fine = t.best;

  // The coarse scan is the one without refinement, bit for bit.
  ModelGuidanceOptions coarse_only = scanOptions(2);
  coarse_only.tuner.refine_per_decade = 0;
  const ModelGuidance unrefined = recommendBaumgarteForModel(chain, start, Integrator::CvodeBdf, 0.01, coarse_only);
  REQUIRE(unrefined.tuning.used);
  CHECK_FALSE(unrefined.tuning.refined);
  CHECK(unrefined.tuning.coarse.omegas.empty());
  CHECK(coarse.omegas == unrefined.tuning.best.omegas);
  CHECK(coarse.smoothed_efficiency == unrefined.tuning.best.smoothed_efficiency);
  CHECK(coarse.band_low == unrefined.tuning.best.band_low);
  CHECK(coarse.band_high == unrefined.tuning.best.band_high);

  // The finer grid is the refinement grid of that coarse scan, inside its span and around its band.
  CHECK(fine.omegas == adaptiveGainRefineGrid(coarse, options.tuner));
  REQUIRE(fine.omegas.size() >= 5);
  CHECK(fine.omegas.front() >= coarse.omegas.front() * (1 - 1e-12));
  CHECK(fine.omegas.back() <= coarse.omegas.back() * (1 + 1e-12));
  CHECK(fine.omegas.front() <= coarse.band_low * (1 + 1e-12));
  CHECK(fine.omegas.back() >= coarse.band_high * (1 - 1e-12));

  // The gain: the middle of the finer band, inside it.
  CHECK(t.omega == std::sqrt(fine.band_low * fine.band_high));
  CHECK(fine.band_low <= t.omega);
  CHECK(t.omega <= fine.band_high);
  CHECK(g.recommendation.omega == t.omega);
  CHECK_THAT(g.recommendation.reasoning, Contains("then") && Contains("8 per decade, ensemble of 7"));

  // Seven members per point: the curve's scatter about its smoothed self near the top (the noise
  // the band is cut from) is well below the coarse scan's three (measured 0.043 against 0.096; the
  // sqrt(7/3) of independent members gives 0.65). Not the members' spread: across seven
  // tolerances (±0.15 decades) it also holds the efficiency's trend with the tolerance (0.15
  // against 0.06), which their mean cancels.
  CHECK(fine.scatter > 0.0);
  CHECK(fine.scatter < 0.75 * coarse.scatter);

  // Every run of both scans counted.
  for (const AdaptiveGainRun& run : t.coarse_runs) CHECK(run.member_work.size() == 3);
  for (const AdaptiveGainRun& run : t.scan_runs) CHECK(run.member_work.size() == 7);
  CHECK(t.runs == 1 + 3 * static_cast<long>(t.coarse_runs.size()) + 7 * static_cast<long>(t.scan_runs.size()));
  CHECK(t.model_calls == t.reference_model_calls + sumOfWork(t.coarse_runs) + sumOfWork(t.scan_runs));
  CHECK(t.grid_points == static_cast<long>(coarse.omegas.size() + fine.omegas.size()));
  CHECK(t.reference_model_calls == unrefined.tuning.reference_model_calls);
}

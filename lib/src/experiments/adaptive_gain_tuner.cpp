#include "kktdae/experiments/adaptive_gain_tuner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"

namespace kktdae {

const char* toString(AdaptiveGainMode mode) { return mode == AdaptiveGainMode::Scan ? "scan" : "rule"; }

void AdaptiveGainTunerOptions::validate() const {
  if (per_decade < 1) throwInvalid("per_decade", "must be >= 1, got " + std::to_string(per_decade));
  if (!(grid_offset >= 0.0 && grid_offset < 1.0)) {
    throwInvalid("grid_offset", "must be in [0, 1) grid steps, got " + formatDouble(grid_offset));
  }
  requirePositive("low_factor", low_factor);
  requirePositive("high_factor", high_factor);
  if (!(low_factor < high_factor)) {
    throwInvalid("low_factor", formatDouble(low_factor) + " must be below high_factor " + formatDouble(high_factor));
  }
  if (!(std::isfinite(extend_factor) && extend_factor >= 1.0)) {
    throwInvalid("extend_factor", "must be finite and >= 1 (1 = no extension), got " + formatDouble(extend_factor));
  }
  if (!(std::isfinite(extend_work_factor) && extend_work_factor > 1.0)) {
    throwInvalid("extend_work_factor", "must be finite and > 1, got " + formatDouble(extend_work_factor));
  }
  if (ensemble_size < 1 || ensemble_size % 2 == 0) {
    throwInvalid("ensemble_size", "must be odd and >= 1, got " + std::to_string(ensemble_size));
  }
  requirePositive("ensemble_step", ensemble_step);
  if (smoothing_half_width < 0) {
    throwInvalid("smoothing_half_width", "must be >= 0, got " + std::to_string(smoothing_half_width));
  }
  requirePositive("band_tolerance", band_tolerance);
  if (outputs < 1) throwInvalid("outputs", "must be >= 1, got " + std::to_string(outputs));
  requireNonNegative("reference_tolerance", reference_tolerance);
  if (scored_components < 0) {
    throwInvalid("scored_components", "must be >= 0 (0 = all), got " + std::to_string(scored_components));
  }
  if (max_steps_factor < 1) throwInvalid("max_steps_factor", "must be >= 1, got " + std::to_string(max_steps_factor));
  if (refine_per_decade < 0 || refine_per_decade % per_decade != 0) {
    throwInvalid("refine_per_decade", "must be 0 (no refinement) or a multiple of per_decade " +
                                          std::to_string(per_decade) + ", got " + std::to_string(refine_per_decade));
  }
  if (refine_ensemble_size < 1 || refine_ensemble_size % 2 == 0) {
    throwInvalid("refine_ensemble_size", "must be odd and >= 1, got " + std::to_string(refine_ensemble_size));
  }
  if (refine_smoothing_half_width < 0) {
    throwInvalid("refine_smoothing_half_width", "must be >= 0, got " + std::to_string(refine_smoothing_half_width));
  }
  // Only a refinement reads it: a caller who widens the band and turns the refinement off is not refused.
  if (refine_per_decade > 0 && !(std::isfinite(refine_candidate_tolerance) && refine_candidate_tolerance >= band_tolerance)) {
    throwInvalid("refine_candidate_tolerance", "must be finite and >= band_tolerance " + formatDouble(band_tolerance) +
                                                   ", got " + formatDouble(refine_candidate_tolerance));
  }
  if (!(std::isfinite(refine_margin) && refine_margin >= 0.0)) {
    throwInvalid("refine_margin", "must be finite and >= 0 decades, got " + formatDouble(refine_margin));
  }
  parallel.validate();
}

namespace {

/// The gains 10^((k + offset)/per_decade) in [low, high] (up to rounding), ascending. Integer
/// exponents, so the gains are the same numbers for any span that holds them.
std::vector<double> gainsBetween(double low, double high, double per_decade, double offset) {
  const long k_low = static_cast<long>(std::ceil(std::log10(low) * per_decade - offset - 1e-9));
  const long k_high = static_cast<long>(std::floor(std::log10(high) * per_decade - offset + 1e-9));
  std::vector<double> grid;
  for (long k = k_low; k <= k_high; ++k) grid.push_back(std::pow(10.0, (static_cast<double>(k) + offset) / per_decade));
  return grid;
}

long modelCalls(const Summary& summary) { return summary.rhs_evaluations + summary.newton_model_evaluations; }

AdaptiveGainTuning fail(AdaptiveGainTuning tuning, const std::string& why) {
  tuning.used = false;
  tuning.message = why;
  spdlog::debug("tuneAdaptiveGain: no gain: {}", why);
  return tuning;
}

}  // namespace

std::vector<double> adaptiveGainTunerGrid(double motion_rate, double mean_step, const AdaptiveGainTunerOptions& options) {
  options.validate();
  requirePositive("motion_rate", motion_rate);
  requirePositive("mean_step", mean_step);
  return gainsBetween(options.low_factor * std::min(motion_rate, 1.0 / mean_step),
                      options.high_factor * std::max(motion_rate, 1.0 / mean_step), options.per_decade,
                      options.grid_offset);
}

std::vector<double> adaptiveGainRefineGrid(const AdaptiveGainBest& coarse, const AdaptiveGainTunerOptions& options) {
  options.validate();
  if (options.refine_per_decade == 0 || !std::isfinite(coarse.smoothed_best_efficiency)) return {};
  if (coarse.smoothed_efficiency.size() != coarse.omegas.size()) {
    throwInvalid("coarse", "holds " + std::to_string(coarse.smoothed_efficiency.size()) + " smoothed values for " +
                               std::to_string(coarse.omegas.size()) + " gains");
  }
  // Every coarse gain near enough to the best to be the best once the noise is averaged down,
  // not only the contiguous band: a second peak beyond a dip is a candidate too.
  double low = 0.0, high = 0.0;
  for (std::size_t i = 0; i < coarse.omegas.size(); ++i) {
    if (!(coarse.smoothed_efficiency[i] >= coarse.smoothed_best_efficiency - options.refine_candidate_tolerance)) {
      continue;
    }
    if (low == 0.0) low = coarse.omegas[i];
    high = coarse.omegas[i];
  }
  const double widen = std::pow(10.0, options.refine_margin);
  // The coarse grid's offset in decades, counted in the finer grid's steps.
  const double ratio = static_cast<double>(options.refine_per_decade) / options.per_decade;
  return gainsBetween(std::max(low / widen, coarse.omegas.front()), std::min(high * widen, coarse.omegas.back()),
                      options.refine_per_decade, options.grid_offset * ratio);
}


AdaptiveGainTuning tuneAdaptiveGain(const ConstrainedSystem& system, const State& start, Integrator integrator,
                                    double tolerance, double horizon, double zeta, const MotionTimeScale& measured,
                                    const AdaptiveGainTunerOptions& options) {
  options.validate();
  if (!isAdaptive(integrator) || integrator == Integrator::IdaGgl) {
    throwInvalid("integrator", std::string(toString(integrator)) +
                                   " has no adaptive Baumgarte gain to scan (cvode_bdf, cvode_adams, ida_index1)");
  }
  requirePositive("tolerance", tolerance);
  requirePositive("horizon", horizon);
  requireNonNegative("zeta", zeta);
  if (options.scored_components > start.q.size()) {
    throwInvalid("scored_components", std::to_string(options.scored_components) + " exceeds nq = " +
                                          std::to_string(start.q.size()));
  }
  AdaptiveGainTuning tuning;
  tuning.reference_tolerance = options.reference_tolerance > 0.0
                                   ? options.reference_tolerance
                                   : std::max(1e-14, std::min(1e-12, 1e-3 * tolerance));
  if (!measured.summary.ok() || !(measured.mean_step > 0.0) || !(measured.motion_rate > 0.0)) {
    return fail(tuning, "the measuring run gave no motion rate and mean step to centre the grid on (" +
                            (measured.summary.ok() ? std::string("motion at rest") : measured.summary.message) + ")");
  }
  const std::vector<double> grid = adaptiveGainTunerGrid(measured.motion_rate, measured.mean_step, options);
  if (grid.size() < 2) {
    return fail(tuning, "the grid from Omega and the mean step holds " + std::to_string(grid.size()) + " gain(s)");
  }

  AdaptiveGainProblem problem;
  problem.name = "tuner";
  problem.system = &system;
  problem.start = start;
  problem.t_end = start.t + horizon;
  // The reference is a run of the user's model at a tolerance it may not reach (ida_ggl fails on
  // Andrews' squeezer at 1e-13): the default is retried once 10x looser, and a reference that
  // still fails (an inconsistent start, a singular point) leaves the rule's gain as the answer.
  const int attempts = options.reference_tolerance > 0.0 ? 1 : 2;
  AdaptiveGainReferenceRun reference;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (attempt > 0) tuning.reference_tolerance *= 10.0;
    reference = runAdaptiveGainReference(system, start, problem.t_end, options.outputs, options.scored_components,
                                         tuning.reference_tolerance);
    tuning.runs += 1;
    tuning.reference_model_calls += modelCalls(reference.summary);
    if (!reference.path.empty()) break;
    spdlog::debug("tuneAdaptiveGain: the reference at {:g} failed: {}", tuning.reference_tolerance,
                  reference.summary.message);
  }
  tuning.model_calls = tuning.reference_model_calls;
  if (reference.path.empty()) {
    return fail(tuning, "no reference path: ida_ggl at " + formatDouble(tuning.reference_tolerance) +
                            " failed: " + reference.summary.message);
  }
  problem.reference_path = std::move(reference.path);

  AdaptiveGainOptions scan_options;
  scan_options.integrators = {integrator};
  scan_options.tolerances = {tolerance};
  scan_options.omegas = grid;
  scan_options.extend_max_omega = options.extend_factor > 1.0 ? grid.back() * options.extend_factor : 0.0;
  scan_options.extend_work_factor = options.extend_work_factor;
  scan_options.ensemble_size = options.ensemble_size;
  scan_options.ensemble_step = options.ensemble_step;
  scan_options.zeta = zeta;
  // SUNDIALS counts max_steps per output interval: a run past ida_index1's cliff (docs §9: nearly
  // every step fails the error test) then takes ~100x the unstabilized steps and millions of model
  // calls unless the cap is relative to what one interval needed without feedback. The floor of 50
  // leaves room for Andrews' squeezer's bursts (175 steps over 100 intervals at 1e-5; with a cap of
  // 20 its ida_index1 scan finds no gain, at 40 it finds the same band); past the cliff its runs
  // cost 4.0M model calls at a floor of 200, 0.2M at 50, and no tuned gain of §9's 75 cases moved.
  const long per_interval = (measured.summary.steps + options.outputs - 1) / options.outputs;
  scan_options.max_steps = std::max(50L, options.max_steps_factor * per_interval);
  scan_options.smoothing_half_width = options.smoothing_half_width;
  scan_options.band_tolerance = options.band_tolerance;
  scan_options.parallel = options.parallel;
  // Runs one scan and books its runs and model calls; false (with the reason) when it refused.
  auto scan = [&](const AdaptiveGainOptions& o, AdaptiveGainBest& best, std::vector<AdaptiveGainRun>& runs,
                  std::string& why) {
    AdaptiveGainScan result;
    try {
      result = scanAdaptiveGains(problem, o);
    } catch (const std::invalid_argument& e) {
      why = std::string("the scan refused its problem: ") + e.what();  // e.g. a reference of zeros
      return false;
    }
    for (const AdaptiveGainRun& run : result.runs) {
      tuning.runs += static_cast<long>(run.member_work.size());
      for (long work : run.member_work) tuning.model_calls += work;
    }
    best = std::move(result.best.front());
    runs = std::move(result.runs);
    tuning.grid_points += static_cast<long>(best.omegas.size());
    return true;
  };
  std::string why;
  if (!scan(scan_options, tuning.best, tuning.scan_runs, why)) return fail(tuning, why);
  if (!std::isfinite(tuning.best.smoothed_best_efficiency)) {
    return fail(tuning, "no grid point reached the end with every ensemble member");
  }
  const std::vector<double> refine_grid = adaptiveGainRefineGrid(tuning.best, options);
  std::string refine_note;  // why a refinement asked for gave no band
  if (options.refine_per_decade > 0 && refine_grid.size() < 2) {
    refine_note = "; not refined: the finer grid holds " + std::to_string(refine_grid.size()) + " gain(s)";
  }
  if (refine_grid.size() >= 2) {
    AdaptiveGainOptions refine_options = scan_options;
    refine_options.omegas = refine_grid;
    // The coarse scan has already followed the flat work past its grid; the refinement stays inside.
    refine_options.extend_max_omega = 0.0;
    refine_options.ensemble_size = options.refine_ensemble_size;
    refine_options.smoothing_half_width = options.refine_smoothing_half_width;
    AdaptiveGainBest fine;
    std::vector<AdaptiveGainRun> fine_runs;
    if (scan(refine_options, fine, fine_runs, why) && std::isfinite(fine.smoothed_best_efficiency)) {
      tuning.coarse = std::move(tuning.best);
      tuning.coarse_runs = std::move(tuning.scan_runs);
      tuning.best = std::move(fine);
      tuning.scan_runs = std::move(fine_runs);
      tuning.refined = true;
    } else {
      // The coarse band is still a measurement: keep it, and say why the finer one is missing.
      refine_note = "; the refinement over " + std::to_string(refine_grid.size()) + " gains gave no band (" +
                    (why.empty() ? std::string("no grid point reached the end with every ensemble member") : why) +
                    "), the coarse band stands";
    }
  }
  // The band's middle (in log ω) rather than the smoothed best: on a flat top the best is
  // whichever of several peaks the noise lifts (§9: the band of the same case moves by ×10 between
  // two measurements while the curve stays within 0.2 digits), and the middle of the range within
  // band_tolerance is the estimate that moves least; on a sharp peak the two coincide.
  tuning.omega = std::sqrt(tuning.best.band_low * tuning.best.band_high);
  tuning.used = true;
  const AdaptiveGainBest& first = tuning.refined ? tuning.coarse : tuning.best;
  char coarse_text[160], fine_text[160] = "", result_text[240];
  std::snprintf(coarse_text, sizeof coarse_text, "scanned %zu gains %.3g-%.3g rad/s (%d per decade, ensemble of %d",
                first.omegas.size(), first.omegas.front(), first.omegas.back(), options.per_decade,
                options.ensemble_size);
  if (tuning.refined) {
    std::snprintf(fine_text, sizeof fine_text, "; band %.3g-%.3g), then %zu gains %.3g-%.3g (%d per decade, ensemble of %d",
                  first.band_low, first.band_high, tuning.best.omegas.size(), tuning.best.omegas.front(),
                  tuning.best.omegas.back(), options.refine_per_decade, options.refine_ensemble_size);
  }
  std::snprintf(result_text, sizeof result_text,
                ", over %.3g s against ida_ggl at %.0e): smoothed best %.3g, band %.3g-%.3g, its middle %.3g; %ld runs, "
                "%ld model calls",
                horizon, tuning.reference_tolerance, tuning.best.smoothed_best_omega, tuning.best.band_low,
                tuning.best.band_high, tuning.omega, tuning.runs, tuning.model_calls);
  tuning.message = std::string(coarse_text) + fine_text + result_text + refine_note;
  spdlog::debug("tuneAdaptiveGain: {}", tuning.message);
  return tuning;
}

}  // namespace kktdae

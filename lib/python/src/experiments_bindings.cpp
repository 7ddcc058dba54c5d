// kktdae/experiments: seed 000's chain comparison, the library call behind kktdae-constraints and
// apps/python/constraints.py (so both print the same numbers from the same code), and the motion
// time scale recommend_baumgarte needs for adaptive integrators, and the scan of the adaptive
// integrators' Baumgarte gain (docs/notes/baumgarte-adaptive-gains.md), and recommend_baumgarte_for_model with the
// scan of that gain on the user's own model.
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/experiments/adaptive_gain.hpp"
#include "kktdae/experiments/baumgarte_for_model.hpp"
#include "kktdae/experiments/test_set.hpp"
#include "kktdae/multibody/mechanism.hpp"
#include "kktdae/models/andrews_squeezer.hpp"
#include "kktdae/models/car_axis.hpp"
#include "kktdae/experiments/chain_comparison.hpp"
#include "kktdae/metrics/significant_digits.hpp"
#include "kktdae/stabilization/baumgarte_guidance.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {
namespace {

/// A path (one Vector per output) as an (outputs, components) array.
py::array_t<double> pathToNumpy(const std::vector<Vector>& path) {
  const Eigen::Index k = path.empty() ? 0 : path[0].size();
  Matrix rows(static_cast<Eigen::Index>(path.size()), k);
  for (std::size_t j = 0; j < path.size(); ++j) rows.row(static_cast<Eigen::Index>(j)) = path[j].transpose();
  return toNumpy(rows);
}

/// An (outputs, components) array as a path.
std::vector<Vector> pathFromNumpy(py::handle value, const char* name) {
  const auto array = realArray(value, "adaptive gains", name);
  if (array.ndim() != 2) {
    throw py::value_error(std::string(name) + " must have shape (outputs, components), got " +
                          std::to_string(array.ndim()) + " dimensions");
  }
  const auto rows = static_cast<Eigen::Index>(array.shape(0)), cols = static_cast<Eigen::Index>(array.shape(1));
  std::vector<Vector> path;
  for (Eigen::Index j = 0; j < rows; ++j) path.emplace_back(Eigen::Map<const Vector>(array.data() + j * cols, cols));
  return path;
}

/// Runs `call` with the GIL released unless `system` is a Python model (whose calls need it, and
/// which then runs on the calling thread alone).
template <typename Call>
auto withModel(const ConstrainedSystem& system, const State& start, Call call) {
  if (const auto* python_model = dynamic_cast<const PyConstrainedSystem*>(&system)) {
    python_model->preflight(start);
    return call(true);
  }
  py::gil_scoped_release release;
  return call(false);
}

void bindAdaptiveGains(py::module_& m) {
  m.attr("IDA_INDEX1_OMEGA_STEP") = kIdaIndex1OmegaStep;
  m.attr("ADAPTIVE_GAIN_TOP_WIDTH") = kAdaptiveGainTopWidth;

  py::class_<AdaptiveGainOptions> options_type(m, "AdaptiveGainOptions",
                                          "What scan_adaptive_gains runs: integrators × tolerances × gains ω, how\n"
                                          "the grid is extended, the ensemble per point, the smoothing and band.");
  defKeywordInit(options_type);
  options_type.def_readwrite("integrators", &AdaptiveGainOptions::integrators, "cvode_bdf, cvode_adams and/or ida_index1")
      .def_readwrite("tolerances", &AdaptiveGainOptions::tolerances, "rtol = atol of each scan (each > 0)")
      .def_readwrite("omegas", &AdaptiveGainOptions::omegas, "the gains ω > 0 [rad/s], ascending (ω = 0 always runs)")
      .def_readwrite("extend_max_omega", &AdaptiveGainOptions::extend_max_omega,
                     "carry the grid on above its top by its own ratio, two gains a round, up to this ω; 0: no")
      .def_readwrite("extend_work_factor", &AdaptiveGainOptions::extend_work_factor,
                     "> 1: the extension stops once the top run's work passes this × that of ω = 0")
      .def_readwrite("ensemble_size", &AdaptiveGainOptions::ensemble_size,
                     "runs per grid point (odd ≥ 1) at tolerance·10^(ensemble_step·k), scored by their mean; 1: one run")
      .def_readwrite("ensemble_step", &AdaptiveGainOptions::ensemble_step, "log10 spacing of the ensemble's tolerances (> 0)")
      .def_readwrite("zeta", &AdaptiveGainOptions::zeta, "damping ratio of every gain (α = ζω, β = ω)")
      .def_readwrite("max_steps", &AdaptiveGainOptions::max_steps, "the solvers' step cap per run")
      .def_readwrite("smoothing_half_width", &AdaptiveGainOptions::smoothing_half_width,
                     "neighbours on each side averaged into the smoothed efficiency (≥ 0)")
      .def_readwrite("band_tolerance", &AdaptiveGainOptions::band_tolerance,
                     "digits below the smoothed best that still count as the band (> 0)")
      .def_readwrite("kkt", &AdaptiveGainOptions::kkt, "the KKT solve's options of every run")
      .def_property(
          "threads", [](const AdaptiveGainOptions& o) { return o.parallel.threads; },
          [](AdaptiveGainOptions& o, int threads) { o.parallel.threads = threads; },
          "threads for the independent runs (0: all cores; a Python model always runs on one)")
      .def("validate", &AdaptiveGainOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(options_type, {"integrators", "tolerances", "omegas", "extend_max_omega", "extend_work_factor", "ensemble_size",
                    "ensemble_step", "zeta", "max_steps", "smoothing_half_width", "band_tolerance", "threads"});

  py::class_<AdaptiveGainRun> run(m, "AdaptiveGainRun", "One grid point's run (with an ensemble: its centre member, scored by the mean).");
  run.def_readonly("integrator", &AdaptiveGainRun::integrator)
      .def_readonly("tolerance", &AdaptiveGainRun::tolerance, "the nominal rtol = atol")
      .def_readonly("omega", &AdaptiveGainRun::omega, "ω [rad/s]; 0: no feedback")
      .def_readonly("summary", &AdaptiveGainRun::summary)
      .def_readonly("reached_end", &AdaptiveGainRun::reached_end, "every member reached t_end")
      .def_readonly("scd", &AdaptiveGainRun::scd, "path digits against the reference path")
      .def_readonly("end_scd", &AdaptiveGainRun::end_scd, "significant correct digits of the end state")
      .def_readonly("work", &AdaptiveGainRun::work, "model calls: f or F plus the analytic Newton matrices'")
      .def_readonly("efficiency", &AdaptiveGainRun::efficiency, "scd − log10 work (the members' mean); −inf if failed")
      .def_readonly("member_efficiency", &AdaptiveGainRun::member_efficiency, "each member's scd − log10 work")
      .def_readonly("efficiency_spread", &AdaptiveGainRun::efficiency_spread, "standard deviation of the members'")
      .def_readonly("member_work", &AdaptiveGainRun::member_work, "each member's model calls (their sum: the point's cost)");
  defRepr(run, {"integrator", "tolerance", "omega", "scd", "work", "efficiency", "efficiency_spread"});

  py::class_<AdaptiveGainBest> best(m, "AdaptiveGainBest", "The best gain of one (integrator, tolerance) scan.");
  best.def_readonly("integrator", &AdaptiveGainBest::integrator)
      .def_readonly("tolerance", &AdaptiveGainBest::tolerance)
      .def_readonly("best_omega", &AdaptiveGainBest::best_omega, "the raw (unsmoothed) best ω")
      .def_readonly("best", &AdaptiveGainBest::best, "that run")
      .def_readonly("unstabilized", &AdaptiveGainBest::unstabilized, "the ω = 0 run")
      .def_readonly("unstabilized_mean_step", &AdaptiveGainBest::unstabilized_mean_step, "its mean step [s]")
      .def_readonly("smoothed_best_omega", &AdaptiveGainBest::smoothed_best_omega)
      .def_readonly("smoothed_best_efficiency", &AdaptiveGainBest::smoothed_best_efficiency)
      .def_readonly("smoothed_efficiency", &AdaptiveGainBest::smoothed_efficiency, "at every ω of omegas")
      .def_readonly("smoothed_error", &AdaptiveGainBest::smoothed_error,
                    "standard error of each smoothed_efficiency entry (0 for single runs)")
      .def_readonly("band_low", &AdaptiveGainBest::band_low)
      .def_readonly("band_high", &AdaptiveGainBest::band_high)
      .def_readonly("omegas", &AdaptiveGainBest::omegas, "the scan's grid, extension included")
      .def_readonly("first_run", &AdaptiveGainBest::first_run, "index of its ω = 0 run in AdaptiveGainScan.runs")
      .def_readonly("scatter", &AdaptiveGainBest::scatter, "rms of the points about the smoothed curve near the top")
      .def_readonly("ensemble_spread", &AdaptiveGainBest::ensemble_spread, "rms of the points' ensemble spread there");
  defRepr(best, {"integrator", "tolerance", "smoothed_best_omega", "band_low", "band_high", "scatter", "ensemble_spread"});

  py::class_<AdaptiveGainScan> scan(m, "AdaptiveGainScan", "Every run and one best per (integrator, tolerance).");
  scan.def_readonly("runs", &AdaptiveGainScan::runs).def_readonly("best", &AdaptiveGainScan::best);

  py::class_<AdaptiveGainPlacement> place(m, "AdaptiveGainPlacement", "Where a gain falls relative to a scan's band.");
  place.def_readonly("ratio", &AdaptiveGainPlacement::ratio, "ω / smoothed best")
      .def_readonly("outside_factor", &AdaptiveGainPlacement::outside_factor, "1 inside the band, else the factor off it")
      .def_readonly("side", &AdaptiveGainPlacement::side, "−1 below, 0 inside, +1 above")
      .def_readonly("loss", &AdaptiveGainPlacement::loss, "smoothed best − the smoothed curve at ω [digits]")
      .def_readonly("loss_error", &AdaptiveGainPlacement::loss_error, "standard error of loss (0 for single runs)");
  defRepr(place, {"ratio", "outside_factor", "side", "loss", "loss_error"});
  m.def("place_in_band", &placeInBand, py::arg("best"), py::arg("omega"),
        "Where ω (> 0) falls relative to `best`'s band; raises ValueError for ω ≤ 0.");

  m.def(
      "adaptive_gain_reference_path",
      [](const ConstrainedSystem& system, const State& start, double t_end, long outputs, Eigen::Index components,
         double rtol) {
        checkStateSizes(system, start.q, start.v);
        return pathToNumpy(withModel(system, start, [&](bool) {
          return adaptiveGainReferencePath(system, start, t_end, outputs, components, rtol);
        }));
      },
      py::arg("system"), py::arg("start"), py::arg("t_end"), py::arg("outputs"), py::arg("components") = 0,
      py::arg("rtol") = 1e-12,
      "ida_ggl at rtol (= atol) from `start`, its q at `outputs` equally spaced times after the start (the first\n"
      "`components` coordinates; 0: all), shape (outputs, components). Raises ValueError if that run fails.");
  m.def(
      "test_set_case",
      [](const std::string& name) {
        const TestSetCase c = makeTestSetCase(parseTestSetProblem(name));
        // A fresh model of the same (default, the Test Set's) parameters, owned by Python.
        py::object system;
        if (const auto* mechanism = dynamic_cast<const multibody::Mechanism*>(c.system.get())) {
          system = py::cast(std::make_unique<multibody::Mechanism>(*mechanism));  // shares its immutable data
        } else if (c.problem == TestSetProblem::Andrews) {
          system = py::cast(std::make_unique<AndrewsSqueezer>());
        } else {
          system = py::cast(std::make_unique<CarAxis>());
        }
        py::dict out;
        out["system"] = system;
        out["start"] = c.start.state;
        out["t_end"] = c.reference.t_end;
        out["scored_components"] = c.scored ? static_cast<int>(c.scored_reference.size()) : c.reference.scored_components;
        out["title"] = c.title;
        // The published reference at t_end, and what a run is scored on: scored_values(q at t_end)
        // against scored_reference, with significant_correct_digits (scd) or mescd.
        const ReferenceSolution& r = c.reference;
        py::list published;
        for (const PublishedResult& p : r.published) {
          py::dict row;
          row["solver"] = p.solver;
          row["tolerance"] = p.tolerance;
          row["scd"] = p.scd;
          row["steps"] = p.steps;
          row["evaluations"] = p.evaluations;
          published.append(row);
        }
        py::dict reference;
        reference["source"] = r.source;
        reference["t_end"] = r.t_end;
        reference["q"] = readOnly(toNumpy(r.q));
        reference["v"] = readOnly(toNumpy(r.v));
        reference["lam"] = readOnly(toNumpy(r.lambda));
        reference["lambda_to_source"] = r.lambda_to_source;
        reference["published"] = published;
        out["reference"] = reference;
        const int nq = c.system->nq();
        if (c.scored) {
          out["scored_reference"] = readOnly(toNumpy(c.scored_reference));
          out["scored_name"] = c.scored_name;
          const auto scored = c.scored;
          out["scored_values"] = py::cpp_function(
              [scored, nq](py::handle q) { return toNumpy(Vector(scored(toVector(q, nq, "scored_values", "q")))); },
              py::arg("q"), "The values scored of an end state's q (the Test Set's components).");
        } else {
          const int k = r.scored_components;
          out["scored_reference"] = readOnly(toNumpy(Vector(r.q.head(k))));
          out["scored_name"] = std::string("q[:") + std::to_string(k) + "]";
          out["scored_values"] = py::cpp_function(
              [k, nq](py::handle q) { return toNumpy(Vector(toVector(q, nq, "scored_values", "q").head(k))); },
              py::arg("q"), "The values scored of an end state's q: its first scored_components entries.");
        }
        return out;
      },
      py::arg("name"),
      "A kktdae-testset problem (\"andrews\", \"caraxis\", \"heavy_top\", \"andrews_bodies\") as kktdae-errdyn and\n"
      "kktdae-testset run it: a dict with its model (AndrewsSqueezer, CarAxis, or a Mechanism for the last two),\n"
      "its consistent start, t_end, scored_components (the number of values scored) and title; its published\n"
      "`reference` at t_end (source, t_end, q, v, lam, lambda_to_source, published: the solvers' scd) and how a run\n"
      "is scored: scored_values(q at t_end) against scored_reference (named scored_name), e.g. with\n"
      "significant_correct_digits. Raises ValueError for another name.");
  m.def(
      "significant_correct_digits",
      [](py::handle y, py::handle reference) {
        const Vector r = toVector(reference, -1, "significant_correct_digits", "reference");
        return significantCorrectDigits(toVector(y, r.size(), "significant_correct_digits", "y"), r);
      },
      py::arg("y"), py::arg("reference"),
      "The IVP Test Set's scd = −log10 max_i |y_i − ref_i| / |ref_i| (inf when equal). ValueError for a size\n"
      "mismatch, a zero or non-finite reference entry or a non-finite y.");
  m.def(
      "mixed_error_significant_digits",
      [](py::handle y, py::handle reference, double rtol, double atol) {
        const Vector r = toVector(reference, -1, "mixed_error_significant_digits", "reference");
        return mixedErrorSignificantDigits(toVector(y, r.size(), "mixed_error_significant_digits", "y"), r, rtol, atol);
      },
      py::arg("y"), py::arg("reference"), py::arg("rtol"), py::arg("atol"),
      "The IVP Test Set's mescd = −log10 max_i |y_i − ref_i| / (atol/rtol + |ref_i|).");
  m.def(
      "path_digits",
      [](py::handle path, py::handle reference) {
        return pathDigits(pathFromNumpy(path, "path"), pathFromNumpy(reference, "reference"));
      },
      py::arg("path"), py::arg("reference"),
      "−log10 of the rms over outputs of max_i |q_i − r_i| / max_t |r_i|; both of shape (outputs, components).");
  m.def(
      "scan_adaptive_gains",
      [](const ConstrainedSystem& system, const State& start, double t_end, py::handle reference_path,
         AdaptiveGainOptions options, std::string name) {
        checkStateSizes(system, start.q, start.v);
        AdaptiveGainProblem problem;
        problem.name = std::move(name);
        problem.system = &system;
        problem.start = start;
        problem.t_end = t_end;
        problem.reference_path = pathFromNumpy(reference_path, "reference_path");
        return withModel(system, start, [&](bool python_model) {
          if (python_model) options.parallel.threads = 1;  // its calls need the GIL this thread holds
          return scanAdaptiveGains(problem, options);
        });
      },
      py::arg("system"), py::arg("start"), py::arg("t_end"), py::arg("reference_path"), py::arg("options"),
      py::arg("name") = "",
      "Runs every (integrator, tolerance, ω) of `options` from `start` (consistent) to t_end, scores each run's\n"
      "path against reference_path (adaptive_gain_reference_path at the same number of outputs) per model call,\n"
      "and finds each scan's smoothed best and band (docs/notes/baumgarte-adaptive-gains.md). Raises ValueError for invalid\n"
      "options or problems; a failed run is a row whose summary says why.");
}

/// AdaptiveGainMode, the tuner's options and result, ModelGuidanceOptions/ModelGuidance and
/// recommend_baumgarte_for_model.
void bindModelGuidance(py::module_& m) {
  py::enum_<AdaptiveGainMode> mode(m, "AdaptiveGainMode",
                                   "How recommend_baumgarte_for_model picks an adaptive gain: RULE (closed form from\n"
                                   "one measuring run) or SCAN (also scans ω on the model; a few hundred runs).");
  addNamedValues(mode, std::vector<AdaptiveGainMode>{AdaptiveGainMode::Rule, AdaptiveGainMode::Scan});

  py::class_<AdaptiveGainTunerOptions> tuner(m, "AdaptiveGainTunerOptions",
                                             "The scan of AdaptiveGainMode.SCAN: grid, extension, ensemble, smoothing, band.");
  defKeywordInit(tuner);
  tuner.def_readwrite("per_decade", &AdaptiveGainTunerOptions::per_decade, "gains per decade (≥ 1)")
      .def_readwrite("grid_offset", &AdaptiveGainTunerOptions::grid_offset,
                     "gains 10^((k + grid_offset)/per_decade), offset in [0, 1) grid steps")
      .def_readwrite("low_factor", &AdaptiveGainTunerOptions::low_factor, "the grid starts at low_factor·min(Ω, 1/h̄)")
      .def_readwrite("high_factor", &AdaptiveGainTunerOptions::high_factor, "and ends at high_factor·max(Ω, 1/h̄)")
      .def_readwrite("extend_factor", &AdaptiveGainTunerOptions::extend_factor,
                     "extend past the top up to this × the top (≥ 1; 1 = none) while the work stays flat")
      .def_readwrite("extend_work_factor", &AdaptiveGainTunerOptions::extend_work_factor,
                     "the top run's work over ω = 0 at which extending stops (> 1)")
      .def_readwrite("ensemble_size", &AdaptiveGainTunerOptions::ensemble_size, "runs per grid point (odd ≥ 1)")
      .def_readwrite("ensemble_step", &AdaptiveGainTunerOptions::ensemble_step, "log10 spacing of their tolerances")
      .def_readwrite("smoothing_half_width", &AdaptiveGainTunerOptions::smoothing_half_width,
                     "neighbours averaged on each side")
      .def_readwrite("band_tolerance", &AdaptiveGainTunerOptions::band_tolerance, "digits below the best still near-best")
      .def_readwrite("outputs", &AdaptiveGainTunerOptions::outputs, "outputs the path is scored at")
      .def_readwrite("reference_tolerance", &AdaptiveGainTunerOptions::reference_tolerance,
                     "ida_ggl reference's rtol = atol; 0: min(1e-12, 1e-3 τ), at least 1e-14")
      .def_readwrite("scored_components", &AdaptiveGainTunerOptions::scored_components,
                     "the first coordinates of q scored (0 = all)")
      .def_readwrite("max_steps_factor", &AdaptiveGainTunerOptions::max_steps_factor,
                     "each run's step cap per output interval: this × the measuring run's per interval (at least 50)")
      .def_readwrite("refine_per_decade", &AdaptiveGainTunerOptions::refine_per_decade,
                     "a second, finer scan around the first one's near-best gains, gains per decade (0 = none)")
      .def_readwrite("refine_ensemble_size", &AdaptiveGainTunerOptions::refine_ensemble_size,
                     "its runs per grid point (odd ≥ 1)")
      .def_readwrite("refine_smoothing_half_width", &AdaptiveGainTunerOptions::refine_smoothing_half_width,
                     "its neighbours averaged on each side")
      .def_readwrite("refine_candidate_tolerance", &AdaptiveGainTunerOptions::refine_candidate_tolerance,
                     "it spans the coarse gains within this many digits of the coarse best (≥ band_tolerance)")
      .def_readwrite("refine_margin", &AdaptiveGainTunerOptions::refine_margin,
                     "widened by this many decades each side, inside the coarse grid (≥ 0)")
      .def_property(
          "threads", [](const AdaptiveGainTunerOptions& o) { return o.parallel.threads; },
          [](AdaptiveGainTunerOptions& o, int threads) { o.parallel.threads = threads; },
          "worker threads (0 = all cores); the result is the same for any count")
      .def("validate", &AdaptiveGainTunerOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(tuner, {"per_decade", "grid_offset", "low_factor", "high_factor", "ensemble_size", "threads"});

  py::class_<AdaptiveGainTuning> tuning(m, "AdaptiveGainTuning", "What the scan of the gain measured and recommends.");
  tuning.def_readonly("used", &AdaptiveGainTuning::used, "the scan gave the gain (False: the rule's, message says why)")
      .def_readonly("message", &AdaptiveGainTuning::message, "what was done, or why no gain")
      .def_readonly("omega", &AdaptiveGainTuning::omega, "√(band_low · band_high) [rad/s]")
      .def_readonly("rule_omega", &AdaptiveGainTuning::rule_omega, "the closed form's gain from the same run [rad/s]")
      .def_readonly("reference_tolerance", &AdaptiveGainTuning::reference_tolerance)
      .def_readonly("best", &AdaptiveGainTuning::best, "the scan's AdaptiveGainBest (smoothed best, band, curve, grid; the refinement's if it ran)")
      .def_readonly("scan_runs", &AdaptiveGainTuning::scan_runs, "its grid points, ω = 0 first")
      .def_readonly("refined", &AdaptiveGainTuning::refined, "the refinement ran and best is its scan")
      .def_readonly("coarse", &AdaptiveGainTuning::coarse, "refined: the first scan's AdaptiveGainBest")
      .def_readonly("coarse_runs", &AdaptiveGainTuning::coarse_runs, "refined: the first scan's grid points")
      .def_readonly("grid_points", &AdaptiveGainTuning::grid_points, "gains scanned in both scans (ω = 0 not counted)")
      .def_readonly("runs", &AdaptiveGainTuning::runs, "solver runs: the reference and every member")
      .def_readonly("model_calls", &AdaptiveGainTuning::model_calls, "model calls of all of them")
      .def_readonly("reference_model_calls", &AdaptiveGainTuning::reference_model_calls, "of those, the reference's");
  defRepr(tuning, {"used", "refined", "omega", "rule_omega", "grid_points", "runs", "model_calls"});

  py::class_<ModelGuidanceOptions> options(m, "ModelGuidanceOptions",
                                           "What recommend_baumgarte_for_model measures and how.");
  defKeywordInit(options);
  options.def_readwrite("guidance", &ModelGuidanceOptions::guidance, "ζ and safety (the measured fields are filled in)")
      .def_readwrite("horizon", &ModelGuidanceOptions::horizon, "length of the measuring run(s) [s]")
      .def_readwrite("tolerance", &ModelGuidanceOptions::tolerance, "adaptive: rtol = atol of the runs (give the run's own)")
      .def_readwrite("measure_limit", &ModelGuidanceOptions::measure_limit, "fixed-step: bisect the real limit")
      .def_readwrite("min_steps", &ModelGuidanceOptions::min_steps, "fixed-step: steps per bisection run (≥ 1)")
      .def_readwrite("offset", &ModelGuidanceOptions::offset, "fixed-step: the bisection's start off the manifold")
      .def_readwrite("adaptive_mode", &ModelGuidanceOptions::adaptive_mode, "AdaptiveGainMode: RULE or SCAN")
      .def_readwrite("tuner", &ModelGuidanceOptions::tuner, "SCAN: its AdaptiveGainTunerOptions")
      .def("validate", &ModelGuidanceOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(options, {"horizon", "tolerance", "adaptive_mode"});

  py::class_<ModelGuidance> result(m, "ModelGuidance", "The recommendation and what was measured for it.");
  result.def_readonly("recommendation", &ModelGuidance::recommendation)
      .def_readonly("time_scale", &ModelGuidance::time_scale, "adaptive integrators: the measuring run's MotionTimeScale")
      .def_property_readonly(
          "limit_found", [](const ModelGuidance& g) { return g.limit.found; }, "fixed-step: the bisection found a limit")
      .def_property_readonly(
          "measured_limit", [](const ModelGuidance& g) { return g.limit.limit; }, "fixed-step: the bisected dt·ω")
      .def_readonly("tuning", &ModelGuidance::tuning, "SCAN: the AdaptiveGainTuning");
  defRepr(result, {"recommendation", "tuning"});

  m.def(
      "recommend_baumgarte_for_model",
      [](const ConstrainedSystem& system, const State& start, Integrator integrator, double dt,
         ModelGuidanceOptions options) {
        checkStateSizes(system, start.q, start.v);
        return withModel(system, start, [&](bool python_model) {
          if (python_model) options.tuner.parallel.threads = 1;  // its calls need the GIL this thread holds
          return recommendBaumgarteForModel(system, start, integrator, dt, options);
        });
      },
      py::arg("system"), py::arg("start"), py::arg("integrator"), py::arg("dt"),
      py::arg("options") = ModelGuidanceOptions{},
      "recommend_baumgarte fed from `system` itself: for an adaptive integrator one run without feedback measures\n"
      "Ω and the mean step (and with options.adaptive_mode = SCAN a scan of ω on the model gives the gain: the\n"
      "middle of its band of near-best gains; tuning says what it measured); for a fixed-step one the real limit\n"
      "of dt·ω is bisected. Raises ValueError as recommend_baumgarte does and for invalid options.");
  m.def("adaptive_gain_tuner_grid", &adaptiveGainTunerGrid, py::arg("motion_rate"), py::arg("mean_step"),
        py::arg("options") = AdaptiveGainTunerOptions{},
        "The SCAN grid: 10^((k + grid_offset)/per_decade) within [low_factor·min(Ω, 1/h̄), high_factor·max(Ω, 1/h̄)].");
  m.def("adaptive_gain_refine_grid", &adaptiveGainRefineGrid, py::arg("coarse"),
        py::arg("options") = AdaptiveGainTunerOptions{},
        "The refinement's grid after the coarse scan `coarse` (an AdaptiveGainBest): refine_per_decade gains per\n"
        "decade over the coarse gains within refine_candidate_tolerance of its best, widened by refine_margin\n"
        "decades, inside the coarse grid; empty for refine_per_decade = 0 or a coarse scan without a usable point.");
}

}  // namespace

void bindExperiments(py::module_& m) {
  py::class_<ChainMode> mode(m, "ChainMode", "A named stabilization mode of the chain comparison.");
  mode.def(py::init([](std::string name, Stabilization stabilization) { return ChainMode{std::move(name), stabilization}; }),
           py::arg("name"), py::arg("stabilization"))
      .def_readwrite("name", &ChainMode::name)
      .def_readwrite("stabilization", &ChainMode::stabilization);
  defRepr(mode, {"name", "stabilization"});

  py::class_<ChainRunMetrics> metrics(m, "ChainRunMetrics", "Seed 000's numbers for one run (NaN when nothing was observed).");
  metrics.def_readonly("max_violation", &ChainRunMetrics::max_violation, "max over states of max_k | |d_k| − L_k | [m]")
      .def_readonly("final_violation", &ChainRunMetrics::final_violation, "the same at the last state [m]")
      .def_readonly("energy_rel_max", &ChainRunMetrics::energy_rel_max, "max |E − E0| / (Σm · g · ΣL)")
      .def_property_readonly("tip_final", [](const ChainRunMetrics& r) { return toNumpy(Vector(r.tip_final)); },
                             "last particle at the last state [m], shape (3,)")
      .def_readonly("samples", &ChainRunMetrics::samples, "states observed");
  defRepr(metrics, {"max_violation", "final_violation", "energy_rel_max", "tip_final", "samples"});

  py::class_<ChainTrace> trace(m, "ChainTrace", "Per state: t, link-length violation, energy and the tip's x, y.");
  trace.def_property_readonly("t", [](const ChainTrace& c) { return toNumpy(Eigen::Map<const Vector>(c.t.data(), c.t.size())); })
      .def_property_readonly("violation", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.violation.data(), c.violation.size()));
      })
      .def_property_readonly("energy", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.energy.data(), c.energy.size()));
      })
      .def_property_readonly("tip_x", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.tip_x.data(), c.tip_x.size()));
      })
      .def_property_readonly("tip_y", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.tip_y.data(), c.tip_y.size()));
      })
      .def("__len__", &ChainTrace::size);

  py::class_<ChainModeResult> result(m, "ChainModeResult", "One mode's run: its Summary, metrics and (optional) trace.");
  result.def_readonly("name", &ChainModeResult::name)
      .def_readonly("stabilization", &ChainModeResult::stabilization)
      .def_readonly("summary", &ChainModeResult::summary)
      .def_readonly("metrics", &ChainModeResult::metrics)
      .def_readonly("trace", &ChainModeResult::trace)
      .def_property_readonly("diverged", &ChainModeResult::diverged, "The run did not succeed.");
  defRepr(result, {"name", "metrics", "summary"});

  m.def(
      "run_chain_comparison",
      [](const PendulumChain& chain, const State& initial, const std::vector<ChainMode>& modes,
         const SimulationOptions& options, bool record_trace) {
        checkStateSizes(chain, initial.q, initial.v);
        py::gil_scoped_release release;  // no Python inside: the chain is a C++ model
        return runChainComparison(chain, initial, modes, options, record_trace);
      },
      py::arg("chain"), py::arg("initial"), py::arg("modes"), py::arg("options"), py::arg("record_trace") = false,
      "Seed 000's experiment: runs each mode from `initial` with `options` (its stabilization replaced by the\n"
      "mode's), observing every step, and returns one ChainModeResult per mode. A mode that fails stops there;\n"
      "its metrics cover the states before.");

  py::class_<MotionTimeScale> scale(m, "MotionTimeScale",
                                    "The motion's own rate and the adaptive solver's mean step, from one run without feedback.");
  scale.def_readonly("motion_rate", &MotionTimeScale::motion_rate,
                     "Ω = √(Σ aᵀMa / Σ q̇ᵀMq̇) over the outputs [rad/s] (a pendulum of frequency Ω gives Ω)")
      .def_readonly("mean_step", &MotionTimeScale::mean_step, "duration / steps of the run [s]")
      .def_readonly("summary", &MotionTimeScale::summary, "the run's Summary");
  defRepr(scale, {"motion_rate", "mean_step", "summary"});
  m.def(
      "measure_motion_time_scale",
      [](const ConstrainedSystem& system, const State& start, double t_end, Integrator integrator, double tolerance,
         long outputs) {
        checkStateSizes(system, start.q, start.v);
        if (const auto* python_model = dynamic_cast<const PyConstrainedSystem*>(&system)) {
          python_model->preflight(start);
          return measureMotionTimeScale(system, start, t_end, integrator, tolerance, outputs);  // calls Python: keeps the GIL
        }
        py::gil_scoped_release release;
        return measureMotionTimeScale(system, start, t_end, integrator, tolerance, outputs);
      },
      py::arg("system"), py::arg("start"), py::arg("t_end"), py::arg("integrator"), py::arg("tolerance"),
      py::arg("outputs") = 200,
      "Runs the adaptive `integrator` without Baumgarte terms from `start` to t_end at rtol = atol = tolerance\n"
      "over `outputs` (≥ 4) intervals and measures the motion's rate and the mean step: the motion_rate and\n"
      "mean_step recommend_baumgarte wants for that integrator. Raises ValueError for invalid arguments or a\n"
      "motion at rest; a failed run keeps what it saw (summary says why).");
  bindAdaptiveGains(m);
  bindModelGuidance(m);
}

}  // namespace kktdae::python

#include "sweep/sweep_runs.hpp"

#include <chrono>
#include <cmath>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>

#include "kktdae/kktdae.hpp"

namespace kktdae::apps {

/// A run's outcome and its last state, which a reference is compared with.
/// Outside the anonymous namespace: SweepRunner::Cache, which has linkage, holds it.
struct FinishedRun {
  Summary summary;
  Vector q_final, v_final;
  double energy_drift = 0.0;
  ChainRunMetrics chain_metrics;
};

namespace {

/// A model and where its runs start, built from a run's parameters.
struct ModelAndStart {
  std::unique_ptr<ConstrainedSystem> system;
  const PendulumChain* chain = nullptr;  ///< set for the chain: it has the chapter's metrics
  State start;
};

double number(const nlohmann::json& params, const char* name) { return params.at(name).get<double>(); }

ModelAndStart buildModel(const std::string& model, const nlohmann::json& p) {
  ModelAndStart built;
  if (model == "chain") {
    PendulumChainParams params = PendulumChainParams::uniform(p.at("links").get<int>(), number(p, "mass"), number(p, "length"));
    params.gravity = number(p, "gravity");
    auto chain = std::make_unique<PendulumChain>(params);
    double tilt = 0.0;
    if (p.contains("tilt")) {
      tilt = number(p, "tilt");
    } else {
      // The chapter's one random draw: the launch tilt from numpy's default_rng(seed).
      NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(p.at("seed").get<std::uint64_t>());
      tilt = rng.uniform(-0.05, 0.05);
    }
    built.start = chain->initialState(tilt);
    built.start.q *= 1.0 + number(p, "stretch");  // every link longer by that fraction: φ(q0) ≠ 0
    built.chain = chain.get();
    built.system = std::move(chain);
  } else if (model == "circle") {
    CircleMassParams params;
    params.mass = number(p, "mass");
    params.radius = number(p, "radius");
    params.gravity = number(p, "gravity");
    auto circle = std::make_unique<CircleMass>(params);
    built.start = circle->initialState(number(p, "x0"));
    built.system = std::move(circle);
  } else if (model == "four_bar") {
    FourBarParams params;
    params.gravity = number(p, "gravity");
    built.start = fourBarState(params, number(p, "crank_angle"), number(p, "crank_rate"));
    built.system = std::make_unique<FourBar>(params);
  } else if (model == "slider_crank") {
    SliderCrankParams params;
    params.gravity = number(p, "gravity");
    built.start = sliderCrankState(params, number(p, "crank_angle"), number(p, "crank_rate"));
    built.system = std::make_unique<SliderCrank>(params);
  } else {
    throw std::invalid_argument("model: unknown '" + model + "'");
  }
  return built;
}

Stabilization stabilizationFor(const nlohmann::json& p) {
  const std::string kind = p.at("stabilization").get<std::string>();
  if (kind == "baumgarte") return Stabilization::fromDampingRatio(number(p, "zeta"), number(p, "omega"));
  if (kind == "projection") return Stabilization::projection();
  if (kind == "soft") return Stabilization::softConstraint();
  return Stabilization::none();
}

/// The library's SimulationOptions for a "run" measure's parameters (as kktdae-constraints fills
/// them from its flags, plus the stabilization).
SimulationOptions simulationOptions(const nlohmann::json& p) {
  SimulationOptions options;
  options.integrator = parseIntegrator(p.at("integrator").get<std::string>());
  options.kkt.form = parseKktForm(p.at("form").get<std::string>());
  options.kkt.path = parseKktPath(p.at("path").get<std::string>());
  options.dt = number(p, "dt");
  options.steps = p.contains("horizon") ? std::lround(number(p, "horizon") / options.dt) : p.at("steps").get<long>();
  options.adaptive.rtol = number(p, "rtol");
  options.adaptive.atol = number(p, "atol");
  options.stabilization = stabilizationFor(p);
  return options;
}

FinishedRun simulateRun(const ModelAndStart& model, const SimulationOptions& options) {
  FinishedRun outcome;
  EnergyDrift energy(*model.system);
  std::unique_ptr<ChainMetricsObserver> chain_metrics;
  if (model.chain != nullptr) chain_metrics = std::make_unique<ChainMetricsObserver>(*model.chain);
  outcome.summary = simulate(*model.system, model.start, options,
                             [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                               energy.observe(t, q, v);
                               if (chain_metrics) chain_metrics->observe(t, q, v);
                               outcome.q_final = q;
                               outcome.v_final = v;
                             });
  outcome.energy_drift = energy.samples() > 0 ? energy.maxAbsDrift() : std::nan("");
  if (chain_metrics) outcome.chain_metrics = chain_metrics->metrics();
  return outcome;
}

/// A number for a row: null when it has no value (JSON has no NaN; the CSV field stays empty).
nlohmann::json valueOrNull(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

bool hasChainMetrics(const SweepPlan& plan) { return plan.model == "chain" && plan.measure == SweepMeasure::Run; }

}  // namespace

std::vector<std::string> resultColumns(const SweepPlan& plan) {
  if (plan.measure == SweepMeasure::Stability) return {"status", "message", "behaviour", "e0", "late_max", "steps"};
  std::vector<std::string> columns = {"status",  "message",     "steps",       "outputs",     "kkt_solves",
                                      "rhs_evaluations", "failed_step", "t_final", "max_phi_inf", "final_phi_inf",
                                      "max_phi_dot_inf", "energy_drift"};
  if (hasChainMetrics(plan)) {
    for (const char* name : {"max_link_error", "final_link_error", "energy_rel_max"}) columns.emplace_back(name);
  }
  if (plan.reference) columns.emplace_back("error");
  return columns;
}

/// The references of this process's runs, each computed by the first thread that needs it.
struct SweepRunner::Cache {
  std::mutex mutex;
  std::map<std::string, std::shared_future<std::shared_ptr<const FinishedRun>>> outcomes;
};

SweepRunner::SweepRunner(const SweepPlan& plan) : plan_(plan), cache_(std::make_unique<Cache>()) {}
SweepRunner::~SweepRunner() = default;

SweepRow SweepRunner::run(std::size_t index) const {
  SweepRow row;
  row.index = index;
  for (const std::string& column : resultColumns(plan_)) row.results[column] = nullptr;
  const nlohmann::json& params = plan_.runs.at(index);
  const auto started = std::chrono::steady_clock::now();
  try {
    const ModelAndStart model = buildModel(plan_.model, params);
    if (plan_.measure == SweepMeasure::Stability) {
      // One cell of the library's stability map: its classification, not a copy of it here.
      StabilityMapOptions map;
      map.integrator = parseIntegrator(params.at("integrator").get<std::string>());
      map.form = parseKktForm(params.at("form").get<std::string>());
      map.dts = {number(params, "dt")};
      map.omegas = {number(params, "omega")};
      map.zeta = number(params, "zeta");
      map.horizon = number(params, "horizon");
      map.min_steps = params.at("min_steps").get<long>();
      map.parallel.threads = 1;  // the sweep's own threads decide how many cores are busy
      const StabilityCell cell = runStabilityMap(*model.system, model.start, map).front();
      row.results["status"] = "success";
      row.results["message"] = "";
      row.results["behaviour"] = std::string(toString(cell.behaviour));
      row.results["e0"] = valueOrNull(cell.e0);
      row.results["late_max"] = valueOrNull(cell.late_max);
      row.results["steps"] = cell.steps;
    } else {
      const FinishedRun outcome = simulateRun(model, simulationOptions(params));
      const Summary& s = outcome.summary;
      nlohmann::json& r = row.results;
      r["status"] = std::string(toString(s.status));
      r["message"] = s.message;
      r["steps"] = s.steps;
      r["outputs"] = s.outputs;
      r["kkt_solves"] = s.kkt_solves;
      r["rhs_evaluations"] = s.rhs_evaluations;
      r["failed_step"] = s.failed_step;
      r["t_final"] = valueOrNull(s.t_final);
      r["max_phi_inf"] = valueOrNull(s.max_phi_inf);
      r["final_phi_inf"] = valueOrNull(s.final_phi_inf);
      r["max_phi_dot_inf"] = valueOrNull(s.max_phi_dot_inf);
      r["energy_drift"] = valueOrNull(outcome.energy_drift);
      if (hasChainMetrics(plan_)) {
        r["max_link_error"] = valueOrNull(outcome.chain_metrics.max_violation);
        r["final_link_error"] = valueOrNull(outcome.chain_metrics.final_violation);
        r["energy_rel_max"] = valueOrNull(outcome.chain_metrics.energy_rel_max);
      }
      if (plan_.reference) {
        const nlohmann::json reference_params = referenceParameters(plan_, index);
        const std::string key = reference_params.dump();
        std::shared_future<std::shared_ptr<const FinishedRun>> future;
        std::promise<std::shared_ptr<const FinishedRun>> promise;
        bool compute = false;
        {
          const std::lock_guard<std::mutex> lock(cache_->mutex);
          auto found = cache_->outcomes.find(key);
          if (found == cache_->outcomes.end()) {
            future = promise.get_future().share();
            cache_->outcomes.emplace(key, future);
            compute = true;
          } else {
            future = found->second;
          }
        }
        if (compute) {
          try {
            promise.set_value(std::make_shared<const FinishedRun>(simulateRun(model, simulationOptions(reference_params))));
          } catch (...) {
            promise.set_exception(std::current_exception());
          }
        }
        const FinishedRun& ref = *future.get();
        const double horizon = std::abs(ref.summary.t_final);
        if (!ref.summary.ok()) {
          if (s.ok()) r["message"] = "no error: the reference failed (" + std::string(toString(ref.summary.status)) + ": " + ref.summary.message + ")";
        } else if (s.ok() && std::abs(s.t_final - ref.summary.t_final) <= 1e-9 * std::max(1.0, horizon)) {
          // ‖y(T) − y_ref(T)‖∞ over (q, q̇), as runWorkPrecision measures a case.
          r["error"] = valueOrNull(std::max((outcome.q_final - ref.q_final).lpNorm<Eigen::Infinity>(),
                                     (outcome.v_final - ref.v_final).lpNorm<Eigen::Infinity>()));
        } else if (s.ok()) {
          r["message"] = "no error: the run ends at t = " + nlohmann::json(s.t_final).dump() + " s, the reference at " +
                         nlohmann::json(ref.summary.t_final).dump() + " s";
        }
      }
    }
  } catch (const std::bad_alloc&) {
    // Not this run's result but the machine's limit: the sweep fails (its journals keep the runs
    // finished) rather than record a row that would read as the method's failure.
    throw std::runtime_error("out of memory in run " + std::to_string(index) + " (" + params.dump() + ")");
  } catch (const std::invalid_argument& error) {
    // Options the library refuses for this run (e.g. a sparse path on a model without a sparse
    // J): a row that says so, and the sweep goes on.
    row.results["status"] = "invalid";
    row.results["message"] = error.what();
  } catch (const std::exception& error) {
    row.results["status"] = "error";
    row.results["message"] = error.what();
  }
  row.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return row;
}

}  // namespace kktdae::apps

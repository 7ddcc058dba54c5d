// kktdae-sensitivity: G = ∫ g dt of a shipped problem and dG/dp, by forward sensitivities
// (IDAS on the DAE, CVODES on the stabilized ODE) or central differences, with the cost of each
// next to a plain run's.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "common/cli_validators.hpp"
#include "common/exit_codes.hpp"
#include "common/interrupt.hpp"
#include "common/json_output.hpp"
#include "common/run_directory.hpp"
#include "kktdae/models/spring_slider_crank.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

const std::vector<std::string> kSensitivityFiles = {"metrics.json", "timing.json"};

/// The independent reference the slider-crank is scored against (models/spring_slider_crank.hpp).
constexpr double kReferenceG = 3.336606799483;
constexpr double kReferenceDgDk = 0.333448105;
constexpr double kReferenceDgDc = -0.363754034;
/// cvode_*'s default Baumgarte gains α = β [1/s, rad/s] on the slider-crank: the ODE keeps φ = 0
/// only through them, and without them its drift moves dG/dp by about 1e-7 at rtol 1e-10
/// (docs/sensitivities.md, "CVODES and the constraint drift").
constexpr double kDefaultGain = 10.0;

struct Flags {
  std::string problem = "slider_crank";
  std::string method = "forward";
  std::string integrator = "ida_ggl";
  double rtol = 1e-6;
  double atol = 0.0;  ///< 0: the same as rtol
  /// Baumgarte gains of cvode_* and ida_index1 (negative: the integrator's default, kDefaultGain for
  /// cvode_*, none for ida_*).
  double alpha = -1.0, beta = -1.0;
  std::filesystem::path out = "outputs/sensitivity";
};

int run(const Flags& flags, Integrator integrator, SensitivityMethod method) {
  RunDirectory dir = openRunDirectory("--out", flags.out, "kktdae-sensitivity", kSensitivityFiles);
  const SpringSliderCrank model;
  const State start = model.initialState();
  SimulationOptions options;
  options.integrator = integrator;
  options.end_time = 10.0;
  options.dt = 10.0;  // one output: the end
  options.adaptive.rtol = flags.rtol;
  options.adaptive.atol = flags.atol > 0.0 ? flags.atol : flags.rtol;
  options.interrupt = interruptFlag();
  const bool cvode = integrator == Integrator::CvodeBdf || integrator == Integrator::CvodeAdams;
  const double default_gain = cvode ? kDefaultGain : 0.0;
  const double alpha = flags.alpha >= 0.0 ? flags.alpha : default_gain;
  const double beta = flags.beta >= 0.0 ? flags.beta : default_gain;
  if (alpha > 0.0 || beta > 0.0) options.stabilization = Stabilization::baumgarte(alpha, beta);
  SensitivityOptions sensitivity;
  sensitivity.method = method;
  sensitivity.integrand = kineticEnergyIntegrand(model);
  const SensitivityResult result = computeSensitivities(model, start, options, sensitivity);
  // The plain run at the same tolerances, for what the sensitivities cost.
  const Summary plain = simulate(model, start, options);
  const SensitivitySummary& s = result.summary;

  nlohmann::json metrics;
  metrics["problem"] = flags.problem;
  metrics["method"] = std::string(toString(method));
  metrics["integrator"] = std::string(toString(integrator));
  metrics["rtol"] = options.adaptive.rtol;
  metrics["atol"] = options.adaptive.atol;
  metrics["t_end"] = 10.0;
  metrics["baumgarte"] = {{"alpha", alpha}, {"beta", beta}};
  metrics["status"] = std::string(toString(s.status));
  if (!s.message.empty()) metrics["message"] = s.message;
  metrics["runs"] = s.runs;
  metrics["steps"] = s.steps;
  metrics["residual_evaluations"] = s.residual_evaluations;
  metrics["sensitivity_residual_evaluations"] = s.sensitivity_residual_evaluations;
  metrics["jacobian_evaluations"] = s.jacobian_evaluations;
  metrics["quadrature_evaluations"] = s.quadrature_evaluations;
  metrics["max_constraint_residual"] = s.max_constraint_residual;  // at the recorded output, t = 10 s
  metrics["max_velocity_constraint_residual"] = s.max_velocity_constraint_residual;
  if (s.ok()) {
    const double dk = result.costDerivative("k"), dc = result.costDerivative("c");
    metrics["G"] = exactNumberOrNull(result.cost);
    metrics["dG_dp"] = {{"k", exactNumberOrNull(dk)}, {"c", exactNumberOrNull(dc)}};
    const Vector& y = result.states.back();
    metrics["final_state"] = {{"q", exactNumberOrNull(y[0])}, {"x", exactNumberOrNull(y[1])},
                              {"p", exactNumberOrNull(y[2])}};
    metrics["reference"] = {{"G", kReferenceG}, {"dG_dp", {{"k", kReferenceDgDk}, {"c", kReferenceDgDc}}}};
    metrics["relative_error"] = {
        {"G", exactNumberOrNull(std::abs(result.cost - kReferenceG) / kReferenceG)},
        {"dG_dp", {{"k", exactNumberOrNull(std::abs(dk - kReferenceDgDk) / std::abs(kReferenceDgDk))},
                   {"c", exactNumberOrNull(std::abs(dc - kReferenceDgDc) / std::abs(kReferenceDgDc))}}}};
  }
  writeJson(dir, "metrics.json", metrics);
  nlohmann::json timing;
  timing["wall_seconds"] = s.wall_seconds;
  timing["plain_run"] = {{"status", std::string(toString(plain.status))}, {"steps", plain.steps},
                         {"residual_evaluations", plain.rhs_evaluations}, {"wall_seconds", plain.wall_seconds}};
  if (plain.wall_seconds > 0.0) timing["cost_ratio"] = s.wall_seconds / plain.wall_seconds;
  writeJson(dir, "timing.json", timing);

  const RunOutcome outcome = interrupted() ? RunOutcome::Interrupted : s.ok() ? RunOutcome::Complete : RunOutcome::Failed;
  dir.finish(outcome, s.message);
  std::printf("kktdae-sensitivity: %s, G = ∫ kinetic energy dt over [0, 10] s, p = (k, c)\n%s\n",
              flags.problem.c_str(), s.briefReport().c_str());
  if (s.ok()) {
    std::printf("G = %.13g   dG/dk = %.10g   dG/dc = %.10g\n", result.cost, result.costDerivative("k"),
                result.costDerivative("c"));
  }
  std::printf("plain %s run: %ld steps, %.3g s\nmetrics: %s\nmanifest: %s (%s)\n",
              std::string(toString(integrator)).c_str(), plain.steps, plain.wall_seconds,
              dir.file("metrics.json").c_str(), dir.file(kManifestName).c_str(), toString(outcome));
  return exitCodeFor(outcome);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"G = ∫ g dt of a shipped problem and its gradient dG/dp: forward sensitivities through IDAS or "
               "CVODES, or central differences",
               "kktdae-sensitivity"};
  Flags flags;
  app.add_option("--problem", flags.problem, "the problem (SUNDIALS' IDAS slider-crank, p = (k, c))")
      ->check(CLI::IsMember({"slider_crank"}))
      ->capture_default_str();
  app.add_option("--method", flags.method, "forward: IDAS forward sensitivities; fd: central differences")
      ->check(CLI::IsMember({"forward", "fd"}))
      ->capture_default_str();
  app.add_option("--integrator", flags.integrator, "ida_ggl, ida_index1 (IDAS on the DAE), cvode_bdf or cvode_adams "
                                                  "(CVODES on the stabilized ODE)")
      ->capture_default_str();
  app.add_option("--rtol", flags.rtol, "relative tolerance")->check(finitePositive())->capture_default_str();
  app.add_option("--atol", flags.atol, "absolute tolerance (default: the same as --rtol)")->check(finitePositive());
  app.add_option("--alpha", flags.alpha,
                 "Baumgarte damping alpha [1/s] of cvode_* and ida_index1 (default: 10 for cvode_*, 0 for ida_*)")
      ->check(finiteNonNegative());
  app.add_option("--beta", flags.beta,
                 "Baumgarte frequency beta [rad/s] of cvode_* and ida_index1 (default: 10 for cvode_*, 0 for ida_*)")
      ->check(finiteNonNegative());
  app.add_option("--out", flags.out, "output directory")->capture_default_str();
  installInterruptHandlers();
  Integrator integrator = Integrator::IdaGgl;
  SensitivityMethod method = SensitivityMethod::Forward;
  try {
    app.parse(argc, argv);
    if (flags.integrator != "ida_ggl" && flags.integrator != "ida_index1" && flags.integrator != "cvode_bdf" &&
        flags.integrator != "cvode_adams") {
      throw CLI::ValidationError("--integrator", "'" + flags.integrator +
                                                     "' is not supported for sensitivities (supported: ida_ggl, "
                                                     "ida_index1, cvode_bdf, cvode_adams)");
    }
    if (flags.integrator == "ida_ggl" && (flags.alpha > 0.0 || flags.beta > 0.0)) {
      throw CLI::ValidationError("--alpha/--beta", "ida_ggl keeps the constraints itself and takes no Baumgarte gains");
    }
    integrator = parseIntegrator(flags.integrator);
    method = parseSensitivityMethod(flags.method);
  } catch (const CLI::ParseError& error) {
    return usageExit(app, error);
  }
  try {
    return run(flags, integrator, method);
  } catch (const CLI::ParseError& error) {  // an --out that cannot be used
    std::fprintf(stderr, "kktdae-sensitivity: error: %s\n", error.what());
    return kExitUsage;
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "kktdae-sensitivity: error: %s\n", error.what());
    return kExitUsage;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-sensitivity: error: %s\n", error.what());
    return kExitFailed;
  }
}

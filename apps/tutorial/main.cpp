// kktdae-tutorial: the two models of docs/defining-models.md, each checked by checkModel() and
// against finite differences, solved in both KKT forms and simulated with RK4 and IDA (GGL) in both forms.
// Prints a table and exits 1 if any check fails, so CI keeps the tutorial honest.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bead_on_hoop.hpp"
#include "common/cli_validators.hpp"
#include "common/exit_codes.hpp"
#include "common/interrupt.hpp"
#include "common/number_format.hpp"
#include "spherical_pendulum.hpp"

namespace {

using namespace kktdae;
using tutorial::BeadOnHoop;
using tutorial::SphericalPendulum;

struct Settings {
  double dt = 1e-3;         // RK4's step [s]
  double rtol = 1e-9;       // IDA's relative tolerance (atol = rtol / 100)
  double duration = 10.0;   // simulated time [s]
};

/// The ida_ggl runs report every 0.01 s (simulateAndWatch).
constexpr double kIdaOutputSpacing = 0.01;
/// Most steps (RK4) or outputs (ida_ggl) one run may take: twelve runs of 1e8 RK4 steps already
/// take most of an hour.
constexpr double kMaxStepsPerRun = 1e8;

/// Refuses --dt and --duration whose runs would take no step or an unbounded number of them,
/// naming the flags (CLI::ValidationError); compared as doubles, before any conversion.
void checkRunLengths(const Settings& settings) {
  const double rk4_steps = std::round(settings.duration / settings.dt);
  if (!(rk4_steps <= kMaxStepsPerRun)) {
    throw CLI::ValidationError("--duration/--dt", kktdae::apps::pythonRepr(settings.duration) + " s / " +
                                                      kktdae::apps::pythonRepr(settings.dt) + " s = " +
                                                      kktdae::apps::pythonRepr(rk4_steps) + " RK4 steps per run; at most " +
                                                      kktdae::apps::pythonRepr(kMaxStepsPerRun));
  }
  if (rk4_steps < 1.0) {
    throw CLI::ValidationError("--dt", kktdae::apps::pythonRepr(settings.dt) + " s is more than twice --duration " +
                                           kktdae::apps::pythonRepr(settings.duration) + " s: RK4 would take no step");
  }
  const double outputs = std::round(settings.duration / kIdaOutputSpacing);
  if (!(outputs <= kMaxStepsPerRun)) {
    throw CLI::ValidationError("--duration", kktdae::apps::pythonRepr(settings.duration) + " s is " +
                                                 kktdae::apps::pythonRepr(outputs) + " ida_ggl outputs of 0.01 s; at most " +
                                                 kktdae::apps::pythonRepr(kMaxStepsPerRun) + " (1e6 s)");
  }
  if (outputs < 1.0) {
    throw CLI::ValidationError("--duration", kktdae::apps::pythonRepr(settings.duration) +
                                                 " s is shorter than half of ida_ggl's output spacing, 0.01 s");
  }
}

/// Counts the checks and prints each failure; the exit code is failures() > 0.
class Checks {
 public:
  bool require(bool passed, const std::string& what) {
    if (!passed) {
      ++failures_;
      std::printf("CHECK FAILED: %s\n", what.c_str());
    }
    return passed;
  }
  int failures() const { return failures_; }

 private:
  int failures_ = 0;
};

/// A quantity a run must keep (nearly) constant, and how far it may move.
struct Invariant {
  std::string name;
  std::function<double(double t, ConstVectorRef q, ConstVectorRef v)> value;
  double bound;  // largest allowed max_t |value(t) − value(t0)|
};

struct RunResult {
  Summary summary;
  std::vector<double> max_change;  // one per invariant
};

RunResult simulateAndWatch(const ConstrainedSystem& system, const State& start, KktForm form,
                           Integrator integrator, const Settings& settings,
                           const std::vector<Invariant>& invariants) {
  SimulationOptions options;
  options.integrator = integrator;
  options.kkt.form = form;
  options.stabilization = Stabilization::none();  // RK4's drift over 10 s is ~1e-9; ida_ggl holds φ itself
  if (integrator == Integrator::Rk4) {
    options.dt = settings.dt;
  } else {              // adaptive: dt is only the output grid, the steps are IDA's own
    options.dt = 0.01;
    options.adaptive.rtol = settings.rtol;
    options.adaptive.atol = 1e-2 * settings.rtol;
  }
  options.steps = std::lround(settings.duration / options.dt);

  RunResult result{{}, std::vector<double>(invariants.size(), 0.0)};
  std::vector<double> initial;
  result.summary = simulate(system, start, options,
                            [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef /*lambda*/) {
                              for (std::size_t k = 0; k < invariants.size(); ++k) {
                                const double value = invariants[k].value(t, q, v);
                                if (initial.size() <= k) initial.push_back(value);
                                result.max_change[k] = std::max(result.max_change[k], std::abs(value - initial[k]));
                              }
                            });
  return result;
}

/// Every method of the model at the given states (consistent or not); prints the report.
void checkWholeModel(const ConstrainedSystem& system, const std::vector<State>& states, Checks& checks) {
  ModelCheckOptions options;
  options.check_conservative_bias = true;  // h at rest is gravity alone, the gradient of V
  const ModelCheckReport report = checkModel(system, states, options);
  std::printf("%s\n", report.describe().c_str());
  checks.require(report.ok(), system.name() + ": checkModel found mistakes");
}

/// J, ∂φ/∂t and γ against central differences at a state, consistent or not.
void checkModelDerivatives(const ConstrainedSystem& system, const State& state, Checks& checks) {
  const DerivativeCheckReport report = checkDerivatives(system, state.q, state.v, state.t);
  std::printf("%-18s derivatives vs finite differences: %s\n", system.name().c_str(), report.describe().c_str());
  checks.require(report.worstRelativeError() < 1e-7, system.name() + ": derivatives disagree with finite differences");
}

/// q̈ and λ at `state` in both KKT forms; returns the Schur solution and checks the forms agree.
std::pair<Vector, Vector> solveBothForms(const ConstrainedSystem& system, const State& state, Checks& checks) {
  KktWorkspace ws(system);
  const Vector u;  // nu = 0: no inputs
  KktOptions options;
  options.form = KktForm::Schur;
  const KktResult schur = solveAccelerations(system, state.t, state.q, state.v, u, Stabilization::none(), options, ws);
  const Vector qdd = ws.qdd, lambda = ws.lambda;
  options.form = KktForm::Block;
  const KktResult block = solveAccelerations(system, state.t, state.q, state.v, u, Stabilization::none(), options, ws);
  checks.require(schur.ok() && block.ok(), system.name() + ": a KKT solve failed");
  const double difference = std::max((ws.qdd - qdd).lpNorm<Eigen::Infinity>(), (ws.lambda - lambda).lpNorm<Eigen::Infinity>());
  std::printf("%-18s Schur vs block at t = %g: max |difference| in (qdd, lambda) %.1e, rcond %.2g / %.2g\n",
              system.name().c_str(), state.t, difference, schur.rcond, block.rcond);
  checks.require(difference < 1e-12 * (1.0 + qdd.lpNorm<Eigen::Infinity>() + lambda.lpNorm<Eigen::Infinity>()),
                 system.name() + ": Schur and block forms disagree");
  return {qdd, lambda};
}

/// One run per (form, integrator), one table row per invariant.
void runAll(const ConstrainedSystem& system, const std::string& start_label, const State& start,
            const std::vector<Invariant>& invariants, const Settings& settings, Checks& checks,
            std::vector<std::string>& reports) {
  for (Integrator integrator : {Integrator::Rk4, Integrator::IdaGgl}) {
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      const RunResult r = simulateAndWatch(system, start, form, integrator, settings, invariants);
      const Summary& s = r.summary;
      const std::string label = system.name() + " " + start_label + " " + std::string(toString(form)) + " " +
                                std::string(toString(integrator));
      reports.push_back(label + ": " + s.briefReport());
      checks.require(s.ok(), label + " did not finish: " + s.message);
      checks.require(s.max_phi_inf < 1e-6, label + ": max |phi| above 1e-6");
      for (std::size_t k = 0; k < invariants.size(); ++k) {
        const bool ok = r.max_change[k] <= invariants[k].bound;
        std::printf("%-18s %-10s %-5s %-7s %6ld %6ld %6ld  %8.1e  %-13s %8.1e  %7.0e  %s\n", system.name().c_str(),
                    start_label.c_str(), std::string(toString(form)).c_str(), std::string(toString(integrator)).c_str(),
                    s.steps, s.rhs_evaluations, s.kkt_solves, s.max_phi_inf, invariants[k].name.c_str(),
                    r.max_change[k], invariants[k].bound, ok ? "ok" : "FAIL");
        checks.require(ok, label + ": " + invariants[k].name + " moved too far");
      }
    }
  }
}

int runTutorial(const Settings& settings) {
  Checks checks;
  constexpr double kPi = 3.14159265358979323846;
  const double g = 9.81;  // [m/s²], along −y

  // (a) The spherical pendulum: 1 kg on 1 m, released 60° out, moving sideways at 2 m/s.
  const double m = 1.0, L = 1.0;
  const SphericalPendulum pendulum(m, g, L);
  const State pendulum_start = pendulum.initialState(/*theta=*/kPi / 3.0, /*speed=*/2.0);

  // (b) The bead: 1 kg on a hoop of radius 0.5 m spinning once a second (Ω² = 39.5 > g/R = 19.6).
  const double R = 0.5, omega = 2.0 * kPi;
  const BeadOnHoop bead(m, g, R, omega);
  const double theta_star = bead.equilibriumAngle();
  const State bead_at_rest = bead.initialState(theta_star, 0.0);    // riding with the hoop at θ*
  const State bead_released = bead.initialState(/*theta=*/0.2, 0.0);  // near the unstable bottom

  const State off_manifold{0.3, Eigen::Vector3d(0.2, -0.4, 0.1), Eigen::Vector3d(0.5, 1.0, -2.0)};
  std::printf("checkModel at the start and off the manifold\n");
  checkWholeModel(pendulum, {pendulum_start, off_manifold}, checks);
  checkWholeModel(bead, {bead_released, off_manifold}, checks);

  std::printf("\nDerivative checks and KKT solves at the start\n");
  checkModelDerivatives(pendulum, pendulum_start, checks);
  checkModelDerivatives(bead, off_manifold, checks);

  // The pendulum: the rod's row gives λ = m (g y − |q̇|²) / L² in closed form.
  const auto [pendulum_qdd, pendulum_lambda] = solveBothForms(pendulum, pendulum_start, checks);
  const double expected_lambda = m * (g * pendulum_start.q[1] - pendulum_start.v.squaredNorm()) / (L * L);
  std::printf("%-18s lambda %.15g N/m, closed form %.15g\n", "", pendulum_lambda[0], expected_lambda);
  checks.require(std::abs(pendulum_lambda[0] - expected_lambda) < 1e-12 * std::abs(expected_lambda),
                 "spherical_pendulum: lambda differs from m (g y - |v|^2) / L^2");

  // The bead at θ*: it goes round a horizontal circle at Ω, so q̈ = −Ω² (x, 0, z).
  const auto [bead_qdd, bead_lambda] = solveBothForms(bead, bead_at_rest, checks);
  const Eigen::Vector3d centripetal = -omega * omega * Eigen::Vector3d(bead_at_rest.q[0], 0.0, bead_at_rest.q[2]);
  const double qdd_error = (bead_qdd - centripetal).lpNorm<Eigen::Infinity>();
  std::printf("%-18s at theta* = %.6f rad: |qdd - (-Omega^2 x, 0, -Omega^2 z)| = %.1e (|qdd| = %.3f m/s^2)\n", "",
              theta_star, qdd_error, centripetal.norm());
  checks.require(qdd_error < 1e-12 * centripetal.norm(), "bead_on_hoop: qdd at theta* is not the centripetal one");

  std::printf("\nRuns over %g s without Baumgarte (rk4: dt %g; ida_ggl: rtol %g, atol %g)\n", settings.duration,
              settings.dt, settings.rtol, 1e-2 * settings.rtol);
  std::printf("%-18s %-10s %-5s %-7s %6s %6s %6s  %8s  %-13s %8s  %7s\n", "model", "start", "form", "method", "steps",
              "rhs", "kkt", "max|phi|", "invariant", "max|chg|", "bound");
  // Bounds: about 4× the worst run measured (ida_ggl at rtol 1e-9: 4.5e-7 J in E, 4.9e-7 J in C);
  // RK4 at dt 1e-3 stays below 1e-7. A coarser step or tolerance fails them (docs/defining-models.md).
  std::vector<std::string> reports;
  const std::vector<Invariant> pendulum_invariants = {
      {"energy [J]", [&](double t, ConstVectorRef q, ConstVectorRef v) { return pendulum.totalEnergy(q, v, t); }, 2e-6},
      {"L_y [kgm2/s]", [&](double, ConstVectorRef q, ConstVectorRef v) { return pendulum.verticalAngularMomentum(q, v); },
       2e-6}};
  runAll(pendulum, "60deg,2m/s", pendulum_start, pendulum_invariants, settings, checks, reports);
  const std::vector<Invariant> equilibrium_invariants = {
      {"theta [rad]", [&](double, ConstVectorRef q, ConstVectorRef) { return bead.angle(q); }, 1e-6}};
  runAll(bead, "theta*", bead_at_rest, equilibrium_invariants, settings, checks, reports);
  const std::vector<Invariant> jacobi_invariants = {
      {"Jacobi C [J]", [&](double t, ConstVectorRef q, ConstVectorRef v) { return bead.jacobiIntegral(q, v, t); }, 2e-6}};
  runAll(bead, "theta=0.2", bead_released, jacobi_invariants, settings, checks, reports);

  std::printf("\nSummary::briefReport() of each run\n");
  for (const std::string& report : reports) std::printf("%s\n", report.c_str());
  if (kktdae::apps::interrupted()) {
    std::printf("\ninterrupted by a signal: no verdict\n");
    return kktdae::apps::interruptExitCode();
  }
  std::printf("\n%s\n", checks.failures() == 0 ? "all checks passed" : "SOME CHECKS FAILED");
  return checks.failures() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The models of docs/defining-models.md, checked and simulated; exits 1 if a check fails",
               "kktdae-tutorial"};
  Settings settings;
  app.add_option("--dt", settings.dt, "RK4 step [s]")->check(kktdae::apps::finitePositive())->capture_default_str();
  app.add_option("--rtol", settings.rtol, "ida_ggl relative tolerance (atol = rtol/100)")
      ->check(kktdae::apps::finitePositive())
      ->capture_default_str();
  app.add_option("--duration", settings.duration, "simulated time [s]")
      ->check(kktdae::apps::finitePositive())
      ->capture_default_str();
  kktdae::apps::installInterruptHandlers();
  try {
    app.parse(argc, argv);
    checkRunLengths(settings);
  } catch (const CLI::ParseError& error) {
    return kktdae::apps::usageExit(app, error);
  }
  try {
    const int code = runTutorial(settings);
    return kktdae::apps::interrupted() ? kktdae::apps::interruptExitCode() : code;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-tutorial: error: %s\n", error.what());
    return kktdae::apps::kExitFailed;
  }
}

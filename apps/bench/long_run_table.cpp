// kktdae-bench-long-run: the long-run table of docs/integrators.md (RATTLE): the seed's double
// pendulum over a long horizon, the same diagnostics for every method. Prints a Markdown table:
// the energy error max |E − E₀| [J] over the run and over its first and last tenth (a linear
// drift shows as a last tenth ~10× the first), the max link-length error max_k ||d_k| − L_k| [m],
// the work (steps, KKT or constraint-space solves, model evaluations — KKT stages, RATTLE's terms
// and constraint evaluations, IDA's residuals —, Newton or projection iterations, wall seconds).
//
//   kktdae-bench-long-run [--horizon 10000] [--dt 0.005] [--rtol 1e-8] [--atol 1e-10] [--tilt 0.1]
//                         [--methods rattle,semi_implicit,rk4,ida_ggl]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "common/cli_validators.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == ',') {
      parts.emplace_back();
    } else {
      parts.back().push_back(c);
    }
  }
  return parts;
}

struct Row {
  std::string method;
  Summary summary;
  double energy_max = 0.0, energy_first_tenth = 0.0, energy_last_tenth = 0.0, link_max = 0.0;
};

Row run(const PendulumChain& chain, Integrator integrator, double horizon, double dt, double rtol, double atol,
        double tilt) {
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = dt;
  options.steps = std::lround(horizon / dt);
  // The explicit methods hold the manifold by projection; RATTLE and GGL hold it themselves.
  options.stabilization =
      integrator == Integrator::SemiImplicitEuler || integrator == Integrator::Rk4 ? Stabilization::projection()
                                                                                   : Stabilization::none();
  options.adaptive.rtol = rtol;
  options.adaptive.atol = atol;
  // The table measures how far each method's energy goes over the whole horizon. Semi-implicit
  // Euler + projection gains energy without bound here, and the runaway rules would end its row
  // as Diverged within the first seconds; the position rules (NaN, |q| bound) stay on.
  options.divergence.energy_factor = std::numeric_limits<double>::infinity();
  options.divergence.velocity_factor = std::numeric_limits<double>::infinity();
  Row row;
  row.method = std::string(toString(integrator)) +
               (options.stabilization.project_after_step ? " + projection"
                : isAdaptive(integrator)                 ? " (rtol " + shortNumber(rtol) + ")"
                                                         : "");
  const State start = chain.initialState(tilt);
  const double e0 = chain.totalEnergy(start.q, start.v, start.t);
  const double tenth = horizon / 10.0;
  row.summary = simulate(chain, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    const double error = std::abs(chain.totalEnergy(q, v, t) - e0);
    row.energy_max = std::max(row.energy_max, error);
    if (t <= start.t + tenth) row.energy_first_tenth = std::max(row.energy_first_tenth, error);
    if (t > start.t + horizon - tenth) row.energy_last_tenth = std::max(row.energy_last_tenth, error);
    row.link_max = std::max(row.link_max, chain.linkLengthViolation(q));
  });
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Long-run energy and link error of RATTLE, projected explicit steppers and IDA-GGL (Markdown)"};
  double horizon = 1e4, dt = 0.005, rtol = 1e-8, atol = 1e-10, tilt = 0.1;
  std::string methods = "rattle,semi_implicit,rk4,ida_ggl";
  app.add_option("--horizon", horizon, "simulated time [s]")->check(apps::finitePositive())->capture_default_str();
  app.add_option("--dt", dt, "step of the fixed-step methods, output spacing of ida_ggl [s]")
      ->check(apps::finitePositive())
      ->capture_default_str();
  app.add_option("--rtol", rtol, "ida_ggl's relative tolerance")->check(apps::finitePositive())->capture_default_str();
  app.add_option("--atol", atol, "ida_ggl's absolute tolerance")->check(apps::finitePositive())->capture_default_str();
  app.add_option("--tilt", tilt, "launch angle below +x [rad]")->capture_default_str();
  app.add_option("--methods", methods, "comma-separated integrator names")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const PendulumChain chain(PendulumChainParams::uniform(2));
    std::printf("double pendulum, tilt %g rad, %g s at dt %g s\n\n", tilt, horizon, dt);
    std::printf("| method | max abs(E - E0) [J] | first tenth | last tenth | max link error [m] | steps | "
                "solves | model evaluations | Newton / projection iterations | wall [s] | status |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& name : splitCommas(methods)) {
      const Row row = run(chain, parseIntegrator(name), horizon, dt, rtol, atol, tilt);
      const Summary& s = row.summary;
      std::printf("| %s | %.3e | %.3e | %.3e | %.3e | %ld | %ld | %ld | %ld | %.2f | %s |\n", row.method.c_str(),
                  row.energy_max, row.energy_first_tenth, row.energy_last_tenth, row.link_max, s.steps, s.kkt_solves,
                  s.rhs_evaluations,
                  s.newton_iterations + s.projection_iterations, s.wall_seconds, s.ok() ? "ok" : s.message.c_str());
      std::fflush(stdout);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-bench-long-run: %s\n", error.what());
    return 2;
  }
  return 0;
}

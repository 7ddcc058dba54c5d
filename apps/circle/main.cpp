// kktdae-circle: seed 002's planar mass on a circle, Baumgarte-stabilized, block-form KKT.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>

#include "common/cli_validators.hpp"
#include "common/gnuplot.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"
#include "common/output_files.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

struct CircleFlags {
  std::string integrator = "rk4";
  std::string form = "block";
  double dt = 0.005;
  double t_final = 5.0;
  double alpha = 5.0;
  double beta = 10.0;
  double x0 = 1.01;
  double mass = 1.0;
  double radius = 1.0;
  std::string out;
};

/// The times seed 002's lesson invites a look at, and their keys in metrics.json.
const std::vector<std::pair<std::string, double>> kReportTimes = {
    {"0.1", 0.1}, {"0.5", 0.5}, {"1", 1.0}, {"2", 2.0}, {"5", 5.0}};

/// Step index of time t on the dt grid; throws CLI::ValidationError if t is not on it.
long stepOf(double t, double dt, const std::string& what) {
  const double steps = std::round(t / dt);
  if (std::abs(steps * dt - t) > 1e-9 * std::max(1.0, t)) {
    throw CLI::ValidationError("--dt", what + " = " + pythonRepr(t) + " s is not a multiple of dt = " + pythonRepr(dt));
  }
  return static_cast<long>(steps);
}

int run(const CircleFlags& flags) {
  const CircleMass circle(CircleMassParams{flags.mass, 9.81, flags.radius});
  SimulationOptions options;
  options.integrator = parseIntegrator(flags.integrator);
  options.kkt.form = parseKktForm(flags.form);
  options.dt = flags.dt;
  options.steps = stepOf(flags.t_final, flags.dt, "--t-final");
  options.stabilization = Stabilization::baumgarte(flags.alpha, flags.beta);
  std::map<std::string, long> report_steps;
  for (const auto& [key, t] : kReportTimes) {
    if (t <= flags.t_final) report_steps[key] = stepOf(t, flags.dt, "report time");
  }

  ConstraintTrace trace(circle);
  std::vector<double> x, y;
  const Summary summary = simulate(circle, circle.initialState(flags.x0), options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                     trace.observe(t, q, v, lambda);
                                     x.push_back(q[0]);
                                     y.push_back(q[1]);
                                   });

  double max_abs_phi = 0.0, max_after_1s = 0.0;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    max_abs_phi = std::max(max_abs_phi, trace.phiInf(i));
    if (trace.times()[i] > 1.0 + 1e-12) max_after_1s = std::max(max_after_1s, trace.phiInf(i));
  }
  std::printf("circle mass (seed 002): m=%s, L=%s, alpha=%s, beta=%s, start x=%s L, %s, %s form, dt %s s, %ld steps\n",
              pythonRepr(flags.mass).c_str(), pythonRepr(flags.radius).c_str(), pythonRepr(flags.alpha).c_str(),
              pythonRepr(flags.beta).c_str(), pythonRepr(flags.x0).c_str(), flags.integrator.c_str(),
              flags.form.c_str(), pythonRepr(flags.dt).c_str(), summary.steps);
  std::printf("Max |phi|: %.6g   (the starting error %.4g: the lesson's number)\n", max_abs_phi, trace.phiInf(0));
  nlohmann::json phi_at_t = nlohmann::json::object();
  for (const auto& [key, step] : report_steps) {
    const auto i = static_cast<std::size_t>(step);
    if (i >= trace.size()) continue;
    std::printf("phi(t = %s s) = % .6e\n", key.c_str(), trace.phi(i, 0));
    phi_at_t[key] = trace.phi(i, 0);
  }
  std::printf("max |phi| after 1 s: %.6e\n", max_after_1s);
  if (!summary.ok()) std::printf("run failed: %s\n", summary.message.c_str());

  if (flags.out.empty()) return summary.ok() ? 0 : 1;
  const std::filesystem::path out = flags.out;
  prepareOutputDirectory(out);
  nlohmann::json metrics;
  metrics["model"] = "circle_mass";
  metrics["integrator"] = flags.integrator;
  metrics["form"] = flags.form;
  metrics["dt"] = flags.dt;
  metrics["t_final"] = flags.t_final;
  metrics["alpha"] = flags.alpha;
  metrics["beta"] = flags.beta;
  metrics["x0_over_radius"] = flags.x0;
  metrics["phi_at_t"] = phi_at_t;
  metrics["phi_final"] = trace.size() ? trace.phi(trace.size() - 1, 0) : 0.0;
  metrics["max_abs_phi"] = max_abs_phi;
  metrics["max_abs_phi_after_1s"] = max_after_1s;
  metrics["steps"] = summary.steps;
  metrics["rhs_evaluations"] = summary.kkt_solves;
  metrics["status"] = summary.ok() ? "ok" : "failed";
  if (!summary.ok()) metrics["message"] = summary.message;
  writeJson(out / "metrics.json", metrics);
  nlohmann::json timing;
  timing["wall_seconds"] = summary.wall_seconds;
  timing["seconds_per_step"] = summary.steps ? summary.wall_seconds / static_cast<double>(summary.steps) : 0.0;
  writeJson(out / "timing.json", timing);

  std::string csv = "t,x,y,phi,phi_dot,lambda\n";
  for (std::size_t i = 0; i < trace.size(); ++i) {
    csv += shortest(trace.times()[i]) + "," + shortest(x[i]) + "," + shortest(y[i]) + "," + shortest(trace.phi(i, 0)) +
           "," + shortest(trace.phiDot(i, 0)) + "," + shortest(trace.lambda(i, 0)) + "\n";
  }
  writeFileAtomically(out / "circle.csv", csv);
  const std::string script =
      "if (!exists(\"outfile\")) outfile = 'phi.png'\n"
      "set terminal pngcairo size 1000,620 enhanced font 'DejaVu Sans,11'\nset output outfile\n"
      "set datafile separator ','\nset grid\nset key top right box opaque\n"
      "set title " + gnuplotQuote("circle mass: constraint error phi = x^2 + y^2 - L^2, alpha " + pythonRepr(flags.alpha) +
                                  ", beta " + pythonRepr(flags.beta) + ", " + flags.integrator + " dt " + pythonRepr(flags.dt) + " s") +
      " noenhanced\n"
      "set multiplot layout 2,1\n"
      "set ylabel 'phi [m^2]'\nplot 'circle.csv' using 1:4 skip 1 with lines lw 2 title 'phi(t)'\n"
      "unset title\nset logscale y\nset format y '10^{%L}'\nset xlabel 'time t [s]'\nset ylabel '|phi| [m^2]'\n"
      "plot 'circle.csv' using 1:(abs($4) > 0 ? abs($4) : 1/0) skip 1 with lines lw 2 title '|phi(t)|'\n"
      "unset multiplot\n";
  const PlotOutcome plot = renderPlot(out, "phi.gp", "phi.png", script);
  std::printf("metrics: %s\n%s%s\n", (out / "metrics.json").c_str(), plot.rendered ? "plot: " : "plot not rendered: ",
              plot.note.c_str());
  return summary.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Seed 002's point mass on a circle with Baumgarte stabilization in the block KKT form",
               "kktdae-circle"};
  CircleFlags flags;
  app.add_option("--integrator", flags.integrator, "fixed-step integrator")
      ->check(CLI::IsMember({"euler", "semi_implicit", "rk4"}))
      ->capture_default_str();
  app.add_option("--form", flags.form, "KKT form")->check(CLI::IsMember({"schur", "block"}))->capture_default_str();
  app.add_option("--dt", flags.dt, "time step [s]")->check(finitePositive())->capture_default_str();
  app.add_option("--t-final", flags.t_final, "horizon [s]")->check(finitePositive())->capture_default_str();
  app.add_option("--alpha", flags.alpha, "Baumgarte damping alpha [1/s]")->check(finiteNumber())->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--beta", flags.beta, "Baumgarte frequency beta [rad/s]")->check(finiteNumber())->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--x0", flags.x0, "start at (x0 * L, 0), at rest")->check(finitePositive())->capture_default_str();
  app.add_option("--mass", flags.mass, "mass m [kg]")->check(finitePositive())->capture_default_str();
  app.add_option("--radius", flags.radius, "circle radius L [m]")->check(finitePositive())->capture_default_str();
  app.add_option("--out", flags.out, "write metrics.json, timing.json, circle.csv and phi.png here");
  try {
    app.parse(argc, argv);
    return run(flags);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-circle: error: %s\n", error.what());
    return 2;
  }
}

// kktdae-contact: the shipped problems with gaps (a bouncing ball, an impact pendulum, a joint-
// limited double pendulum), integrated event-driven; impacts, the accumulation time and the
// contact forces into metrics.json, recording.csv and a plot.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>

#include "common/cli_validators.hpp"
#include "common/exit_codes.hpp"
#include "common/gnuplot.hpp"
#include "common/interrupt.hpp"
#include "common/json_output.hpp"
#include "common/memory_budget.hpp"
#include "common/number_format.hpp"
#include "common/run_directory.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

struct ContactFlags {
  std::string problem = "ball";
  std::string method = "event";
  std::string integrator = "rk4";
  double dt = 1e-3;
  double t_final = 10.0;
  std::string out;
};

/// The most steps a run may take (the recording holds one row per step).
constexpr double kMaxSteps = 1e8;

/// Peak memory per recorded row [bytes]: measured with /usr/bin/time -f %M over 1e5 and 2e5 rows
/// of limited_chain (the widest recording): 396 bytes per row; 600 is used.
double memoryEstimate(const ContactFlags& flags) {
  return 16e6 + std::ceil(flags.t_final / flags.dt) * 600.0;
}

const std::vector<std::string> kFiles = {"metrics.json", "timing.json", "recording.csv", "contact.gp", "contact.png"};

int run(const ContactFlags& flags) {
  const contact::ContactProblem problem = contact::contactProblem(flags.problem);
  contact::ContactRunOptions options;
  options.integrator = parseIntegrator(flags.integrator);
  options.dt = flags.dt;
  options.end_time = problem.initial.t + flags.t_final;
  options.interrupt = interruptFlag();
  if (!(flags.t_final / flags.dt <= kMaxSteps)) {
    throw CLI::ValidationError("--t-final/--dt", "t_final / dt = " + pythonRepr(flags.t_final / flags.dt) +
                                                     " steps; at most 1e8 are supported");
  }
  try {
    options.validate();
  } catch (const std::invalid_argument& error) {
    throw CLI::ValidationError("--integrator", "--integrator " + flags.integrator + ": " + error.what());
  }
  requireMemory("--t-final " + pythonRepr(flags.t_final) + " --dt " + pythonRepr(flags.dt), memoryEstimate(flags));
  std::optional<RunDirectory> dir;
  if (!flags.out.empty()) dir.emplace(openRunDirectory("--out", flags.out, "kktdae-contact", kFiles));

  const ConstrainedSystem& system = *problem.system;
  const contact::UnilateralConstraints& gaps = *problem.gaps;
  const int ng = gaps.ng();
  std::string csv = "t";
  for (int k = 0; k < ng; ++k) csv += ",g_" + gaps.gapName(k);
  for (int k = 0; k < ng; ++k) csv += ",lambda_N_" + gaps.gapName(k);
  for (int i = 0; i < system.nq(); ++i) csv += ",q" + std::to_string(i);
  for (int i = 0; i < system.nq(); ++i) csv += ",v" + std::to_string(i);
  for (int i = 0; i < system.nc(); ++i) csv += ",lambda" + std::to_string(i);
  csv += "\n";
  Vector g(ng);
  long observed = 0;
  const contact::ContactSummary summary = contact::simulateContact(
      system, gaps, problem.initial, options,
      [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, ConstVectorRef lambda_N) {
        gaps.gap(q, t, g);
        csv += csvNumber(t);
        for (int k = 0; k < ng; ++k) csv += "," + csvNumber(g[k]);
        for (int k = 0; k < ng; ++k) csv += "," + csvNumber(lambda_N[k]);
        for (Eigen::Index i = 0; i < q.size(); ++i) csv += "," + csvNumber(q[i]);
        for (Eigen::Index i = 0; i < v.size(); ++i) csv += "," + csvNumber(v[i]);
        for (Eigen::Index i = 0; i < lambda.size(); ++i) csv += "," + csvNumber(lambda[i]);
        csv += "\n";
        testSignalAtStep(observed++);
      });
  const RunOutcome run_outcome = interrupted() || summary.status == RunStatus::Interrupted ? RunOutcome::Interrupted
                                 : summary.ok()                                          ? RunOutcome::Complete
                                                                                         : RunOutcome::Failed;
  std::printf("%s, event-driven %s, dt %s s, to t = %s s: %zu impacts", problem.name.c_str(), flags.integrator.c_str(),
              pythonRepr(flags.dt).c_str(), pythonRepr(options.end_time).c_str(), summary.impacts.size());
  if (summary.zeno_time) std::printf(", zeno_time %.10f s", *summary.zeno_time);
  std::printf("\n");
  for (std::size_t i = 0; i < summary.impacts.size() && i < 6; ++i) {
    const contact::ImpactRecord& r = summary.impacts[i];
    std::printf("impact %zu: t = %.15f s  %s  v- = %.9f  v+ = %.9f  impulse = %.9f\n", i + 1, r.t, r.name.c_str(),
                r.v_minus, r.v_plus, r.impulse);
  }
  std::fflush(stdout);
  if (!summary.ok()) std::fprintf(stderr, "kktdae-contact: run failed: %s\n", summary.message.c_str());
  if (!dir) return exitCodeFor(run_outcome);

  nlohmann::json metrics;
  metrics["problem"] = problem.name;
  metrics["method"] = flags.method;
  metrics["integrator"] = flags.integrator;
  metrics["dt"] = flags.dt;
  metrics["t_final"] = flags.t_final;
  metrics["status"] = run_outcome == RunOutcome::Interrupted ? "interrupted" : summary.ok() ? "ok" : "failed";
  if (!summary.ok()) metrics["message"] = summary.message;
  nlohmann::json impacts = nlohmann::json::array();
  for (const contact::ImpactRecord& r : summary.impacts) {
    nlohmann::json item;
    item["t"] = exactNumberOrNull(r.t);
    item["contact"] = r.name;
    item["v_minus"] = exactNumberOrNull(r.v_minus);
    item["v_plus"] = exactNumberOrNull(r.v_plus);
    item["impulse"] = exactNumberOrNull(r.impulse);
    item["kinetic_energy_loss"] = exactNumberOrNull(r.kinetic_energy_loss);
    item["kinetic_energy_loss_closed_form"] = exactNumberOrNull(r.closed_form_loss);  // null when gaps coupled
    impacts.push_back(item);
  }
  metrics["impacts"] = impacts;
  metrics["zeno_time"] = summary.zeno_time ? exactNumberOrNull(*summary.zeno_time) : nlohmann::json(nullptr);
  metrics["zeno_contact"] = summary.zeno_time ? nlohmann::json(gaps.gapName(summary.zeno_contact)) : nlohmann::json(nullptr);
  nlohmann::json transitions = nlohmann::json::array();
  for (const contact::ContactTransition& c : summary.transitions) {
    transitions.push_back({{"t", exactNumberOrNull(c.t)}, {"contact", c.name}, {"kind", c.kind}});
  }
  metrics["transitions"] = transitions;
  metrics["steps"] = summary.steps;
  metrics["acceleration_solves"] = summary.acceleration_solves;
  metrics["lcp_solves"] = summary.lcp_solves;
  metrics["root_searches"] = summary.root_searches;
  metrics["root_trials"] = summary.root_trials;
  metrics["max_complementarity_residual"] = exactNumberOrNull(summary.max_complementarity_residual);
  metrics["max_abs_phi"] = exactNumberOrNull(summary.max_phi_inf);
  metrics["t_end"] = exactNumberOrNull(summary.t_final);
  writeJson(*dir, "metrics.json", metrics);
  nlohmann::json timing;
  timing["wall_seconds"] = summary.wall_seconds;
  writeJson(*dir, "timing.json", timing);
  dir->write("recording.csv", csv);
  std::printf("metrics: %s\nrecording: %s\n", dir->file("metrics.json").c_str(), dir->file("recording.csv").c_str());

  auto finish = [&](RunOutcome outcome, const std::string& message) {
    if (interrupted()) outcome = RunOutcome::Interrupted;
    dir->finish(outcome, !message.empty() ? message : summary.ok() ? std::string() : summary.message);
    std::printf("manifest: %s (%s)\n", dir->file(kManifestName).c_str(), toString(outcome));
    return exitCodeFor(outcome);
  };
  if (observed < 2) {
    std::printf("plot not drawn: fewer than two states were observed\n");
    return finish(run_outcome, {});
  }
  std::string gap_plot, force_plot;
  for (int k = 0; k < ng; ++k) {
    gap_plot += std::string(k ? ", " : "") + "'recording.csv' using 1:" + std::to_string(2 + k) +
                " skip 1 with lines lw 2 title " + gnuplotQuote("g " + gaps.gapName(k)) + " noenhanced";
    force_plot += std::string(k ? ", " : "") + "'recording.csv' using 1:" + std::to_string(2 + ng + k) +
                  " skip 1 with lines lw 2 title " + gnuplotQuote("lambda_N " + gaps.gapName(k)) + " noenhanced";
  }
  const std::string script =
      "if (!exists(\"outfile\")) outfile = 'contact.png'\n"
      "set terminal pngcairo size 1000,700 enhanced font 'DejaVu Sans,11'\nset output outfile\n"
      "set datafile separator ','\nset grid\nset key top right box opaque\nset autoscale xfix\n"
      "set multiplot layout 2,1 title " + gnuplotQuote(problem.name + ": gaps and contact forces, event-driven " +
                                                       flags.integrator + ", dt " + pythonRepr(flags.dt) + " s") +
      " noenhanced\n"
      "set ylabel 'gap g'\nplot " + gap_plot + "\n"
      "set xlabel 'time t [s]'\nset ylabel 'contact force lambda_N' noenhanced\nplot " + force_plot + "\n"
      "unset multiplot\n";
  const PlotOutcome plot = renderPlot(*dir, "contact.gp", "contact.png", script);
  std::printf("%s\n", plot.line().c_str());
  return finish(worse(run_outcome, outcomeOf(plot)), plot.status == PlotStatus::Failed ? plot.note : std::string());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Gaps that push but never pull: impacts and persistent contact, event-driven", "kktdae-contact"};
  ContactFlags flags;
  app.add_option("--problem", flags.problem, "the shipped problem")
      ->check(CLI::IsMember({"ball", "impact_pendulum", "limited_chain"}))
      ->capture_default_str();
  app.add_option("--method", flags.method, "event: exact between contact events, each located and solved (time-stepping comes later)")
      ->check(CLI::IsMember({"event"}))
      ->capture_default_str();
  app.add_option("--integrator", flags.integrator, "the integrator between events (rk4 only so far)")
      ->check(CLI::IsMember(integratorChoices()))
      ->capture_default_str();
  app.add_option("--dt", flags.dt, "step between events [s]")->check(finitePositive())->capture_default_str();
  app.add_option("--t-final", flags.t_final, "duration [s] (the ball's impacts accumulate at 8.58 s)")
      ->check(finitePositive())
      ->capture_default_str();
  app.add_option("--out", flags.out, "write metrics.json, timing.json, recording.csv and contact.png here");
  installInterruptHandlers();
  try {
    app.parse(argc, argv);
    return run(flags);
  } catch (const CLI::ParseError& error) {
    return usageExit(app, error);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kktdae-contact: error: out of memory (--t-final %s --dt %s: %s)\n",
                 pythonRepr(flags.t_final).c_str(), pythonRepr(flags.dt).c_str(),
                 memoryShortfall(memoryEstimate(flags)).c_str());
    return kExitFailed;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-contact: error: %s\n", error.what());
    return kExitFailed;
  }
}

// kktdae-compare: work-precision comparison of the seven integrators on one model.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>

#include "common/exit_codes.hpp"
#include "common/interrupt.hpp"
#include "common/number_format.hpp"
#include "common/run_directory.hpp"
#include "compare/compare_cli.hpp"
#include "compare/compare_report.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

std::string chainTitle(int links, double tilt) {
  const std::string name = links == 1 ? "pendulum" : links == 2 ? "double pendulum" : links == 3 ? "triple pendulum"
                                                                                                 : "pendulum chain";
  return name + " (" + std::to_string(links) + " links of 1 kg, 1 m), tilt " + pythonRepr(tilt) + " rad";
}

int run(const CompareSetup& setup, const std::filesystem::path& out) {
  // The circle starts on its constraint (x0 = L): with φ(0) ≠ 0 the unstabilized ODE, the
  // Baumgarte ODE and GGL's projected start would follow three different solutions, and no
  // single reference could judge them all.
  std::unique_ptr<ConstrainedSystem> system;
  State start;
  std::string title;
  if (setup.model == "chain") {
    auto chain = std::make_unique<PendulumChain>(PendulumChainParams::uniform(setup.links));
    start = chain->initialState(setup.tilt);
    title = chainTitle(setup.links, setup.tilt);
    system = std::move(chain);
  } else {
    auto circle = std::make_unique<CircleMass>();
    start = circle->initialState(1.0);
    title = "mass on a circle (1 kg, L = 1 m) from (L, 0) at rest";
    system = std::move(circle);
  }
  RunDirectory dir = openRunDirectory("--out", out, "kktdae-compare", compareFiles());

  WorkPrecisionOptions options = setup.options;
  options.interrupt = interruptFlag();  // a signal stops the run under way at its next step
  if (!setup.event.empty()) {  // checked by finishCompareFlags; the chain is the system's object
    options.events = {parseChainCondition("--event", setup.event, static_cast<const PendulumChain&>(*system))};
  }
  std::printf("kktdae-compare: %s; T = %s s, %s, %s KKT form; %zu runs x %d timing repeats\n", title.c_str(),
              pythonRepr(options.horizon).c_str(),
              options.stabilization.kind == Stabilization::Kind::None ? "no stabilization" : options.stabilization.describe().c_str(),
              std::string(toString(options.kkt.form)).c_str(), setup.cases.size(), options.timing_repeats);
  std::fflush(stdout);  // the runs take a while: say what is running first

  CompareRun comparison;
  comparison.setup = &setup;
  comparison.model_title = title;
  try {
    comparison.report = runWorkPrecision(*system, start, setup.cases, options);
  } catch (const std::invalid_argument& error) {
    // Measured: at rtol 1e-12 (atol 1e-14) ida_ggl can fail its first step on chains of three
    // or more links (IDA_CONV_FAIL at t = 0); 1e-11 starts (docs/integrators.md).
    if (interrupted()) {  // the reference run was the one stopped
      dir.finish(RunOutcome::Interrupted, "interrupted by a signal during the reference run");
      return interruptExitCode();
    }
    std::fprintf(stderr, "kktdae-compare: error: %s\n", error.what());
    if (options.reference_rtol < 1e-11) std::fprintf(stderr, "kktdae-compare: hint: try --reference-rtol 1e-11\n");
    dir.finish(RunOutcome::Failed, error.what());
    return kExitFailed;
  }

  std::fputs(formatTable(comparison).c_str(), stdout);
  writeCsv(dir, comparison);
  writeCompareJson(dir, comparison);
  writeTiming(dir, comparison);
  std::printf("table: %s\nreport: %s\ntiming: %s, %s\n", dir.file("compare.csv").c_str(),
              dir.file("compare.json").c_str(), dir.file("timing.csv").c_str(), dir.file("timing.json").c_str());
  // A run that failed is a measurement too (its status is in the table and the files); the
  // comparison itself succeeded unless a plot could not be rendered or a signal stopped it.
  const std::vector<PlotOutcome> plots = writePlots(dir, comparison);
  for (const PlotOutcome& plot : plots) std::printf("%s\n", plot.line().c_str());
  const auto [plotted, message] = outcomeOf(plots);
  const RunOutcome outcome = interrupted() ? RunOutcome::Interrupted : plotted;
  dir.finish(outcome, outcome == RunOutcome::Interrupted ? "interrupted by a signal" : message);
  std::printf("manifest: %s (%s)\n", dir.file(kManifestName).c_str(), toString(outcome));
  return exitCodeFor(outcome);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Work-precision comparison: fixed-step integrators over a dt sweep and SUNDIALS over a "
               "tolerance sweep, each run's error at T against an ida_ggl reference (rtol 1e-12)",
               "kktdae-compare"};
  CompareFlags flags;
  addCompareFlags(app, flags);
  CompareSetup setup;
  try {
    app.parse(argc, argv);
    setup = finishCompareFlags(flags, app);
  } catch (const CLI::ParseError& error) {
    return usageExit(app, error);
  } catch (const std::invalid_argument& error) {  // a Baumgarte gain the library refuses
    std::fprintf(stderr, "kktdae-compare: error: %s\n", error.what());
    return kExitUsage;
  }
  installInterruptHandlers();
  try {
    return run(setup, flags.out);
  } catch (const CLI::ParseError& error) {  // an unusable --out
    return usageExit(app, error);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-compare: error: %s\n", error.what());
    return kExitFailed;
  }
}

// kktdae-testset: the IVP Test Set's Andrews squeezer and car axis, one run scored against the
// published reference, or a work-precision ladder of every integrator.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "common/exit_codes.hpp"
#include "common/gnuplot.hpp"
#include "common/interrupt.hpp"
#include "common/run_directory.hpp"
#include "kktdae/experiments/test_set.hpp"
#include "testset/testset_cli.hpp"
#include "testset/testset_report.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

/// Every file either mode writes: a run of one mode never leaves the other's old files beside it.
const std::vector<std::string> kTestSetFiles = {
    "metrics.json", "timing.json", "ladder.csv", "ladder.json", "timing_ladder.csv", "work_precision.dat",
    "timing_work_precision.dat", "published.dat", "work_precision.gp", "work_precision.png",
    "timing_work_precision.gp", "timing_work_precision.png"};

/// "interrupted by a signal" once one arrived, else `message`.
std::string manifestMessage(RunOutcome outcome, const std::string& message) {
  return outcome == RunOutcome::Interrupted ? "interrupted by a signal" : message;
}

int runOne(const TestSetSetup& setup, const std::filesystem::path& out) {
  RunDirectory dir = openRunDirectory("--out", out, "kktdae-testset", kTestSetFiles);
  const TestSetCase problem = makeTestSetCase(setup.problem);
  TestSetRunOptions options = setup.run;
  options.interrupt = interruptFlag();
  const TestSetRunResult result = runTestSet(problem, options);
  writeRunFiles(dir, problem, options, result);
  // A run that failed is reported in its files; exit 1 tells a script it did not reach t_end.
  const RunOutcome outcome =
      interrupted() ? RunOutcome::Interrupted : result.reached_end ? RunOutcome::Complete : RunOutcome::Failed;
  dir.finish(outcome, manifestMessage(outcome, result.summary.message));
  std::printf("kktdae-testset: %s\n%s\n", problem.title.c_str(), result.formulation.c_str());
  std::printf("%s\n", formatRunLine(result).c_str());
  if (outcome == RunOutcome::Failed) std::printf("run failed: %s\n", result.summary.message.c_str());
  std::printf("metrics: %s\nmanifest: %s (%s)\n", (out / "metrics.json").c_str(), dir.file(kManifestName).c_str(),
              toString(outcome));
  return exitCodeFor(outcome);
}

int runLadder(const TestSetSetup& setup, const std::filesystem::path& out) {
  RunDirectory dir = openRunDirectory("--out", out, "kktdae-testset", kTestSetFiles);
  const TestSetCase problem = makeTestSetCase(setup.problem);
  std::printf("kktdae-testset: %s; ladder of every integrator (fixed-step: %s, at most %ld steps)\n",
              problem.title.c_str(), setup.ladder_options.fixed_stabilization.describe().c_str(),
              setup.ladder_options.max_steps);
  std::fflush(stdout);  // the ladder takes a while: say what is running first
  TestSetLadderOptions options = setup.ladder_options;
  options.interrupt = interruptFlag();
  // A signal ends the ladder after the rung under way: its files hold the rungs finished before.
  const std::vector<TestSetLadderRow> rows = runTestSetLadder(problem, options);
  std::fputs(formatLadderTable(rows).c_str(), stdout);
  const std::vector<PlotOutcome> plots = writeLadderFiles(dir, problem, options, rows);
  for (const PlotOutcome& plot : plots) std::printf("%s\n", plot.line().c_str());
  // Failed rungs are rows of the table: the ladder itself succeeded unless a plot failed.
  const auto [plotted, message] = outcomeOf(plots);
  const RunOutcome outcome = interrupted() ? RunOutcome::Interrupted : plotted;
  dir.finish(outcome, manifestMessage(outcome, message));
  std::printf("table: %s\nmanifest: %s (%s)\n", (out / "ladder.csv").c_str(), dir.file(kManifestName).c_str(),
              toString(outcome));
  return exitCodeFor(outcome);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The IVP Test Set's Andrews squeezing mechanism and car axis: one run scored against the published "
               "reference (scd, mescd), or --ladder: every integrator over tolerances and steps",
               "kktdae-testset"};
  TestSetFlags flags;
  addTestSetFlags(app, flags);
  TestSetSetup setup;
  installInterruptHandlers();
  try {
    app.parse(argc, argv);
    setup = finishTestSetFlags(flags, app);
  } catch (const CLI::ParseError& error) {
    return usageExit(app, error);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "kktdae-testset: error: %s\n", error.what());
    return 2;
  }
  try {
    return setup.ladder ? runLadder(setup, flags.out) : runOne(setup, flags.out);
  } catch (const CLI::ParseError& error) {  // an --out that cannot be used
    std::fprintf(stderr, "kktdae-testset: error: %s\n", error.what());
    return kExitUsage;
  } catch (const std::invalid_argument& error) {  // the integrator refuses the problem
    std::fprintf(stderr, "kktdae-testset: error: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-testset: error: %s\n", error.what());
    return kExitFailed;
  }
}

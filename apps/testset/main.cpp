// kktdae-testset: the IVP Test Set's Andrews squeezer and car axis, one run scored against the
// published reference, or a work-precision ladder of every integrator.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "common/exit_codes.hpp"
#include "common/output_files.hpp"
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

int runOne(const TestSetSetup& setup, const std::filesystem::path& out) {
  RunDirectory dir = openRunDirectory("--out", out, "kktdae-testset", kTestSetFiles);
  const TestSetCase problem = makeTestSetCase(setup.problem);
  const TestSetRunResult result = runTestSet(problem, setup.run);
  writeRunFiles(dir, problem, setup.run, result);
  dir.finish(result.reached_end ? RunOutcome::Complete : RunOutcome::Failed, result.summary.message);
  std::printf("kktdae-testset: %s\n%s\n", problem.title.c_str(), result.formulation.c_str());
  std::printf("%s\n", formatRunLine(result).c_str());
  if (!result.reached_end) std::printf("run failed: %s\n", result.summary.message.c_str());
  std::printf("metrics: %s\n", (out / "metrics.json").c_str());
  // A run that failed is reported in its files; exit 1 tells a script it did not reach t_end.
  return result.reached_end ? 0 : 1;
}

int runLadder(const TestSetSetup& setup, const std::filesystem::path& out) {
  RunDirectory dir = openRunDirectory("--out", out, "kktdae-testset", kTestSetFiles);
  const TestSetCase problem = makeTestSetCase(setup.problem);
  std::printf("kktdae-testset: %s; ladder of every integrator (fixed-step: %s, at most %ld steps)\n",
              problem.title.c_str(), setup.ladder_options.fixed_stabilization.describe().c_str(),
              setup.ladder_options.max_steps);
  std::fflush(stdout);  // the ladder takes a while: say what is running first
  const std::vector<TestSetLadderRow> rows = runTestSetLadder(problem, setup.ladder_options);
  std::fputs(formatLadderTable(rows).c_str(), stdout);
  for (const std::string& line : writeLadderFiles(dir, problem, setup.ladder_options, rows)) {
    std::printf("%s\n", line.c_str());
  }
  dir.finish(RunOutcome::Complete);
  std::printf("table: %s\n", (out / "ladder.csv").c_str());
  return 0;  // failed rungs are rows of the table: the ladder itself succeeded
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The IVP Test Set's Andrews squeezing mechanism and car axis: one run scored against the published "
               "reference (scd, mescd), or --ladder: every integrator over tolerances and steps",
               "kktdae-testset"};
  TestSetFlags flags;
  addTestSetFlags(app, flags);
  TestSetSetup setup;
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

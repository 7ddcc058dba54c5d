// What the apps say about a bad flag: the real problem, the user's flag name, exit code 2, and
// nothing run. Every app bounds its work before it starts.
#include <catch2/catch.hpp>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {

/// Runs `app` with `flags` and checks the usage error: exit 2 and every part of `says` printed.
void checkUsageError(const std::string& app, const std::string& flags, const std::vector<std::string>& says) {
  const AppRun run = runApp(app, flags);
  INFO(app << " " << flags << " -> " << run.exit_code << ": " << run.output);
  CHECK(run.exit_code == 2);
  for (const std::string& text : says) CHECK_THAT(run.output, Contains(text));
}

std::string outDir(const std::string& name) { return " --out '" + freshOutputDir(name).string() + "'"; }

}  // namespace

TEST_CASE("cli: an integer flag given a non-integer says so", "[apps][cli]") {
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--steps 1e3" + outDir("cli_steps"), {"--steps", "'1e3' (not an integer)"});
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--links 2.5" + outDir("cli_links"), {"--links", "not an integer"});
  checkUsageError(KKTDAE_ERRDYN_APP, "--map-points 1e1" + outDir("cli_map_points"), {"--map-points", "not an integer"});
  checkUsageError(KKTDAE_COMPARE_APP, "--repeats 3.0" + outDir("cli_repeats"), {"--repeats", "not an integer"});
  // In range but out of bounds: the bounds as they are.
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--links 0" + outDir("cli_links0"), {"an integer from 1 to 1000000000, got 0"});
  // No step, nothing to run (it once ran, then failed on the log-scale plot of zero violations).
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--steps 0" + outDir("cli_steps0"), {"--steps", "from 1 to 1000000000, got 0"});
}

TEST_CASE("cli: a flag of a mode that does not run is a usage error", "[apps][cli]") {
  for (const std::string flags : {"--adaptive-ensemble 5", "--adaptive-tolerances 1e-6", "--adaptive-tuner-horizon 0.2",
                                  "--adaptive-tuner-refine 4"}) {
    checkUsageError(KKTDAE_ERRDYN_APP, flags + outDir("cli_errdyn_adaptive"), {flags.substr(0, flags.find(' ')), "--adaptive"});
  }
  checkUsageError(KKTDAE_ERRDYN_APP, "--adaptive-tuner-only --adaptive-ensemble 5" + outDir("cli_errdyn_tuner"),
                  {"--adaptive-ensemble", "--adaptive"});
}

TEST_CASE("cli: a number range prints its real bounds and refuses nan", "[apps][cli]") {
  checkUsageError(KKTDAE_ERRDYN_APP, "--rtol 1e-14" + outDir("cli_rtol_small"),
                  {"--rtol", "from 1e-13 to 0.001, got 1e-14"});
  checkUsageError(KKTDAE_ERRDYN_APP, "--rtol nan" + outDir("cli_rtol_nan"), {"--rtol", "got 'nan'"});
  checkUsageError(KKTDAE_CIRCLE_APP, "--alpha -1", {"--alpha", "finite number >= 0, got '-1'"});
}

TEST_CASE("cli: the tutorial bounds its runs and names --dt and --duration", "[apps][cli][tutorial]") {
  for (const std::string flags : {"--dt 1e-320", "--duration 1e12"}) {
    const AppRun run = runApp(KKTDAE_TUTORIAL_APP, flags);
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Contains("--duration"));
    CHECK_THAT(run.output, Contains("RK4 steps per run; at most 100000000.0"));
    CHECK_THAT(run.output, !Contains("steps:"));  // the library's field name, never the user's
  }
  checkUsageError(KKTDAE_TUTORIAL_APP, "--dt 1e308", {"--dt", "RK4 would take no step"});
}

TEST_CASE("cli: a run whose times overflow is refused before it runs", "[apps][cli]") {
  const std::string out = outDir("cli_dt_overflow");
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--dt 1e308" + out, {"--dt", "largest finite time"});
  CHECK(!std::filesystem::exists(freshOutputDir("cli_dt_overflow") / "recording.csv"));
}

TEST_CASE("cli: a run larger than the memory available is a usage error naming the flags and the estimate",
          "[apps][cli][memory]") {
  // 1e8 links need about 300 GB (3 kB per link), 1e9 steps with the recording about 400 GB:
  // more than a test machine holds, and both inside the ranges --help gives.
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--links 100000000 --steps 1" + outDir("cli_memory_links"),
                  {"--links 100000000 --steps 1", "needs about 300 GB of memory", "available (", "ask for less"});
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--steps 1000000000" + outDir("cli_memory_steps"),
                  {"--links 2 --steps 1000000000", "needs about 400 GB of memory"});
  checkUsageError(KKTDAE_CIRCLE_APP, "--t-final 1000000 --dt 0.001" + outDir("cli_memory_circle"),
                  {"--t-final 1000000.0 --dt 0.001", "needs about 300 GB of memory"});
  // The implicit integrators hold more per link: generalized-α and HHT 6 kB, IDA 10 kB.
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--links 100000000 --steps 1 --integrator hht" + outDir("cli_memory_hht"),
                  {"--links 100000000 --steps 1", "needs about 600 GB of memory"});
  checkUsageError(KKTDAE_CONSTRAINTS_APP, "--links 100000000 --steps 1 --integrator ida_ggl" + outDir("cli_memory_ida"),
                  {"--links 100000000 --steps 1", "needs about 1 TB of memory"});
}

TEST_CASE("cli: every app's usage errors exit 2, --help exits 0", "[apps][cli]") {
  for (const std::string app : {KKTDAE_CONSTRAINTS_APP, KKTDAE_CIRCLE_APP, KKTDAE_COMPARE_APP, KKTDAE_ERRDYN_APP,
                                KKTDAE_TUTORIAL_APP, KKTDAE_SWEEP_APP, KKTDAE_TESTSET_APP}) {
    INFO(app);
    CHECK(runApp(app, "--bogus").exit_code == 2);
    CHECK(runApp(app, "--help").exit_code == 0);
  }
}

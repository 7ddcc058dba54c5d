// The apps' parallel sweeps: --threads 1 and --threads 2 write the same bytes; --seeds parses
// and refuses as a user would expect.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {


/// Runs `binary` with `flags` once per thread count into its own directory; returns the directories.
std::vector<std::filesystem::path> runOnThreads(const std::string& binary, const std::string& name,
                                                const std::string& flags) {
  std::vector<std::filesystem::path> dirs;
  for (const char* threads : {"1", "2"}) {
    const auto dir = freshOutputDir(name + "_threads" + threads);
    const AppRun run = runApp(binary, flags + " --threads " + threads + " --out '" + dir.string() + "'");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    dirs.push_back(dir);
  }
  return dirs;
}

void checkSameBytes(const std::vector<std::filesystem::path>& dirs, const std::string& file) {
  INFO(file);
  const std::string serial = readFile(dirs[0] / file);
  REQUIRE(!serial.empty());
  CHECK(readFile(dirs[1] / file) == serial);
}

}  // namespace

TEST_CASE("constraints app: --seeds on 1 and 2 threads writes byte-identical seeds.csv and seeds.json",
          "[apps][parallel]") {
  const auto dirs = runOnThreads(kConstraintsApp, "seeds", "--seeds 0-5,9 --links 3 --steps 300");
  checkSameBytes(dirs, "seeds.csv");
  checkSameBytes(dirs, "seeds.json");
  // Sweep files only: a seed sweep draws no recording and writes no single-run metrics.
  CHECK(!std::filesystem::exists(dirs[0] / "metrics.json"));
  CHECK(!std::filesystem::exists(dirs[0] / "recording.csv"));

  const auto doc = readJson(dirs[1] / "seeds.json");
  REQUIRE(doc["rows"].size() == 7);
  CHECK(doc["rows"][6]["seed"] == 9);  // in the order listed
  CHECK(doc["links"] == 3);
  const auto timing = readJson(dirs[1] / "seeds_timing.json");
  CHECK(timing["threads"] == 2);
  CHECK(timing["seeds"] == 7);

  // Each row is what a single run of that seed writes to metrics.json.
  for (int seed : {0, 4}) {
    const auto single_dir = freshOutputDir("seeds_single_" + std::to_string(seed));
    const AppRun single = runApp(kConstraintsApp, "--seed " + std::to_string(seed) +
                                                   " --links 3 --steps 300 --no-rerun --out '" +
                                                   single_dir.string() + "'");
    INFO(single.output);
    REQUIRE(single.exit_code == 0);
    const auto metrics = readJson(single_dir / "metrics.json");
    const auto& row = doc["rows"][static_cast<std::size_t>(seed)];
    CHECK(row["seed"] == seed);
    CHECK(row["tilt"] == metrics["tilt"]);
    CHECK(row["results"] == metrics["results"]);
  }
}

TEST_CASE("constraints app: --seeds prints the sweep's table", "[apps][parallel]") {
  const auto dir = freshOutputDir("seeds_table");
  const AppRun run = runApp(kConstraintsApp, "--seeds 3 --steps 400 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("1 seeds on 1 thread"));
  CHECK_THAT(run.output, Contains("none"));
  CHECK_THAT(run.output, Contains("baumgarte"));
  CHECK_THAT(run.output, Contains("as expected for 1 of 1 seeds"));
  CHECK_THAT(run.output, Contains("seeds.csv"));
  const std::string csv = readFile(dir / "seeds.csv");
  CHECK(csv.rfind("seed,tilt,none_max_violation,", 0) == 0);
  CHECK_THAT(csv, Contains("\n3,"));
}

TEST_CASE("constraints app: bad --seeds and --threads are usage errors", "[apps][parallel][errors]") {
  const auto dir = freshOutputDir("seeds_bad");
  const std::string out = " --steps 10 --out '" + dir.string() + "'";
  const std::pair<std::string, std::string> cases[] = {
      {"--seeds ''", "--seeds"},           {"--seeds abc", "--seeds"},        {"--seeds 5-2", "backwards"},
      {"--seeds 0,", "--seeds"},           {"--seeds ,3", "--seeds"},         {"--seeds 1-2-3", "--seeds"},
      {"--seeds -4", "--seeds"},           {"--seeds 1,2,1", "listed twice"}, {"--seeds 0-3,2", "listed twice"},
      {"--seeds 0-100000", "100000"},      {"--seeds 1e3", "--seeds"},        {"--seeds '0, 5'", "--seeds"},
      {"--seeds 0-18446744073709551616", "--seeds"},
      {"--seeds 0-3 --seed 1", "--seed"},  {"--seeds 0-3 --tilt 0.1", "--tilt"},
      {"--seeds 0-3 --threads -1", "--threads"}, {"--seeds 0-3 --threads 2000", "--threads"},
      {"--seeds 0-3 --threads two", "--threads"}, {"--threads 2", "--seeds"},
  };
  for (const auto& [flags, mentioned] : cases) {
    const AppRun run = runApp(kConstraintsApp, flags + out);
    INFO(flags << " -> exit " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
    CHECK(!run.crashed());
    CHECK_THAT(run.output, Contains(mentioned));
  }
  // The largest seeds are fine, and a range may end at 2^64 - 1.
  const AppRun top = runApp(kConstraintsApp, "--seeds 18446744073709551614-18446744073709551615" + out);
  INFO(top.output);
  CHECK(top.exit_code == 0);
  CHECK(readJson(dir / "seeds.json")["rows"].size() == 2);
}

TEST_CASE("errdyn app: the continuous checks and the maps are byte-identical on 1 and 2 threads", "[apps][parallel]") {
  // The limits run through the same runStabilityMap() as the maps; --no-limits keeps this fast.
  const auto dirs = runOnThreads(KKTDAE_ERRDYN_APP, "errdyn_threads", "--no-limits --map-points 3");
  checkSameBytes(dirs, "errdyn.json");
  for (const char* integrator : {"euler", "semi_implicit", "rk4"}) {
    for (const char* model : {"plane", "circle", "chain2", "chain3"}) {
      checkSameBytes(dirs, std::string("map_") + integrator + "_" + model + ".csv");
    }
  }
}

TEST_CASE("compare app: every number but the wall times is byte-identical on 1 and 2 threads",
          "[apps][parallel][compare]") {
  const auto dirs = runOnThreads(KKTDAE_COMPARE_APP, "compare_threads",
                                 "--horizon 0.5 --dts 0.01,0.005 --rtols 1e-4,1e-6 --integrators "
                                 "semi_implicit,rk4,cvode_bdf,ida_ggl --repeats 1");
  // The wall times are in timing.* only: everything else is the same bytes for any thread count.
  for (const char* file : {"compare.csv", "compare.json", "work_precision.gp"}) checkSameBytes(dirs, file);
  if (gnuplotOnPath()) checkSameBytes(dirs, "work_precision.png");
  CHECK(readJson(dirs[0] / "timing.json")["timing_threads"] == 1);
  CHECK(readJson(dirs[1] / "timing.json")["timing_threads"] == 2);
}

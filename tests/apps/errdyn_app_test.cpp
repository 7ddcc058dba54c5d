// kktdae-errdyn: the closed form against measurement and the stability limits, as a user runs it.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

TEST_CASE("errdyn app: errdyn.json holds the continuous cases and the derived and measured limits",
          "[apps][errdyn]") {
  const auto dir = freshOutputDir("errdyn");
  const AppRun run = runApp(KKTDAE_ERRDYN_APP, "--no-maps --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto doc = readJson(dir / "errdyn.json");
  REQUIRE(doc["continuous"].size() == 12);  // 4 models × under/critical/over-damped
  for (const auto& c : doc["continuous"]) {
    INFO(c.dump());
    CHECK(c["status"] == "ok");
    for (const char* key : {"case", "alpha", "beta", "max_rel_deviation"}) CHECK(c.contains(key));
    // rtol 1e-10: the deviation is the solver's error relative to max|e| ≈ 0.01–0.02 (bound
    // 100·rtol·|q|/e0 ≤ 3e-6, docs/baumgarte.md)
    CHECK(c["max_rel_deviation"].get<double>() < 3e-6);
  }
  for (const char* integrator : {"euler", "semi_implicit", "rk4"}) {
    const auto& s = doc["stability"][integrator];
    INFO(integrator << ": " << s.dump());
    const double derived = s["derived"].get<double>(), measured = s["measured"].get<double>();
    CHECK(measured >= derived - 1e-9);
    CHECK(measured <= derived + 0.0101);  // one grid step
    CHECK(s["measured_by_model"].contains("circle"));
    CHECK(s["measured_by_model"].contains("chain2"));
  }
  // Semi-implicit Euler keeps the linear limit on the nonlinear models too.
  for (const char* model : {"circle", "chain2", "chain3"}) {
    CHECK(doc["stability"]["semi_implicit"]["measured_by_model"][model].get<double>() ==
          Approx(doc["stability"]["semi_implicit"]["measured"].get<double>()));
  }
}

TEST_CASE("errdyn app: bad flags give a usage error", "[apps][errdyn][errors]") {
  for (const std::string flags : {"", "--out /tmp/x --rtol 0", "--out /tmp/x --map-points 1", "--bogus",
                                  "--out /tmp/x --adaptive-ensemble 2", "--out /tmp/x --adaptive-tolerances 0",
                                  "--out /tmp/x --adaptive-tuner-horizon 0", "--out /tmp/x --adaptive-tuner-horizon 2",
                                  "--out /tmp/x --adaptive-tuner-refine -1", "--out /tmp/x --adaptive-tuner-refine 16"}) {
    const AppRun run = runApp(KKTDAE_ERRDYN_APP, flags);
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
  }
}

TEST_CASE("errdyn app: --adaptive-tuner-only tunes every case inside its own band, the same bytes on one thread and two",
          "[apps][errdyn][tuner]") {
  std::string csv[2];
  for (int threads : {1, 2}) {
    const auto dir = freshOutputDir("errdyn_tuner_" + std::to_string(threads));
    const AppRun run = runApp(KKTDAE_ERRDYN_APP, "--no-maps --no-limits --adaptive-tuner-only --adaptive-tolerances 1e-5 "
                                                 "--threads " + std::to_string(threads) + " --out '" + dir.string() + "'");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    std::ifstream file(dir / "adaptive_tuned.csv");
    csv[threads - 1].assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    const auto doc = readJson(dir / "errdyn.json");
    REQUIRE(doc["adaptive_tuned"].size() == 15);  // 5 models x cvode_bdf, cvode_adams, ida_index1
    for (const auto& row : doc["adaptive_tuned"]) {
      INFO(row.dump());
      CHECK(row["tuned_used"] == true);
      CHECK(row["horizon"].get<double>() > 0.0);
      const double omega = row["tuned_omega"].get<double>();
      CHECK(row["tuned_band_low"].get<double>() <= omega);
      CHECK(omega <= row["tuned_band_high"].get<double>());
      CHECK(omega == Approx(std::sqrt(row["tuned_band_low"].get<double>() * row["tuned_band_high"].get<double>())));
      CHECK(row["grid_low"].get<double>() <= row["tuned_band_low"].get<double>());
      CHECK(row["tuned_band_high"].get<double>() <= row["grid_high"].get<double>());
      CHECK(row["tuned_model_calls"].get<long>() > row["reference_model_calls"].get<long>());
      // Refined by default: the coarse band beside the finer one, both inside the scanned span.
      CHECK(row["refined"] == true);
      CHECK(row["grid_low"].get<double>() <= row["coarse_band_low"].get<double>());
      CHECK(row["coarse_band_low"].get<double>() <= row["coarse_band_high"].get<double>());
      CHECK(row["coarse_band_high"].get<double>() <= row["grid_high"].get<double>());
      CHECK_THAT(row["reasoning"].get<std::string>(), Contains("then") && Contains("8 per decade, ensemble of 7"));
    }
    CHECK(!std::filesystem::exists(dir / "adaptive_best.csv"));  // no full scan
  }
  CHECK(csv[0].size() > 100);
  CHECK(csv[0] == csv[1]);
}

TEST_CASE("errdyn app: SIGINT during --trajectory stops it between limits, exit 130 with an 'interrupted' manifest",
          "[apps][errdyn][signals]") {
  // The trajectory limits take minutes (its rows' bisections took 87-106 s to notice a signal);
  // `timeout` kills an app still running 60 s after the signal.
  const auto dir = freshOutputDir("errdyn_trajectory_signal");
  const AppRun run = runShell("timeout -s KILL 70 '" + kErrdynApp + "' --trajectory --no-limits --no-maps --out '" +
                              dir.string() + "' & app=$!; sleep 3; kill -INT $app; wait $app");
  INFO(run.output);
  CHECK(run.exit_code == 130);
  const auto manifest = readJson(dir / "manifest.json");
  CHECK(manifest["status"] == "interrupted");
  CHECK(!readJson(dir / "errdyn.json").contains("trajectory"));  // unfinished rows are no result
}

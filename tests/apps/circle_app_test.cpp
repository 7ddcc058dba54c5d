// kktdae-circle against seed 002's lesson: its numbers, its outputs, its errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <utility>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {

/// Closed-form Baumgarte error of the circle from rest at φ(0) = e0: under-damped, roots −α ± iω_d.
double closedFormPhi(double t, double alpha, double beta, double e0) {
  const double wd = std::sqrt(beta * beta - alpha * alpha);
  return e0 * std::exp(-alpha * t) * (std::cos(wd * t) + alpha / wd * std::sin(wd * t));
}
}  // namespace

TEST_CASE("circle app: the lesson's run reports its starting error and the decay after it", "[apps][seed002]") {
  const auto dir = freshOutputDir("circle_default");
  const AppRun run = runApp(kCircleApp, "--out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("Max |phi|: 0.0201"));
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["max_abs_phi"].get<double>() == Approx(1.01 * 1.01 - 1.0).epsilon(1e-12));
  CHECK(m["steps"] == 1000);
  CHECK(m["rhs_evaluations"] == 4001);
  CHECK(m["form"] == "block");
  for (const char* key : {"0.1", "0.5", "1", "2", "5"}) {
    INFO(key);
    REQUIRE(m["phi_at_t"].contains(key));
  }
  // φ follows ë + 2αė + β²e = 0 exactly; RK4 at dt 0.005 adds ~4e-8 by t = 0.5 (fourth order:
  // 6e-11 at dt 0.001), far below the 1.5e-3 being checked.
  for (const char* key : {"0.1", "0.5", "1"}) {
    const double t = std::stod(key);
    INFO("t = " << t);
    CHECK(std::abs(m["phi_at_t"][key].get<double>() - closedFormPhi(t, 5.0, 10.0, 0.0201)) < 1e-7);
  }
  CHECK(m["max_abs_phi_after_1s"].get<double>() < 1e-4);
  CHECK(m["max_abs_phi_after_1s"].get<double>() > 0.0);
  CHECK(std::filesystem::exists(dir / "circle.csv"));
  CHECK(std::filesystem::exists(dir / "timing.json"));
}

TEST_CASE("circle app: two runs are byte-identical, Schur and block agree", "[apps][smoke]") {
  const auto a = freshOutputDir("circle_a"), b = freshOutputDir("circle_b"), c = freshOutputDir("circle_schur");
  REQUIRE(runApp(kCircleApp, "--out '" + a.string() + "'").exit_code == 0);
  REQUIRE(runApp(kCircleApp, "--out '" + b.string() + "'").exit_code == 0);
  REQUIRE(runApp(kCircleApp, "--form schur --out '" + c.string() + "'").exit_code == 0);
  CHECK(readFile(a / "metrics.json") == readFile(b / "metrics.json"));
  CHECK(readFile(a / "circle.csv") == readFile(b / "circle.csv"));
  const auto block = readJson(a / "metrics.json"), schur = readJson(c / "metrics.json");
  CHECK(schur["phi_final"].get<double>() == Approx(block["phi_final"].get<double>()).margin(1e-14));
}

TEST_CASE("circle app: bad flags give a usage error and a non-zero exit", "[apps][errors]") {
  const std::pair<std::string, std::string> cases[] = {
      {"--dt 0", "--dt"},           {"--dt -1", "--dt"},          {"--dt nan", "--dt"},
      {"--alpha -1", "--alpha"},    {"--beta nan", "--beta"},     {"--integrator cvode", "--integrator"},
      {"--t-final 0", "--t-final"}, {"--mass 0", "--mass"},       {"--bogus", "bogus"},
      {"--rtol 0", "--rtol"},       {"--atol nan", "--atol"},     {"--rtol -1e-6", "--rtol"},
      // Step counts beyond 1e9 are refused before t_final / dt is converted to an integer.
      {"--dt 1e-300", "1e9"},       {"--t-final 1e300", "1e9"},   {"--t-final 0.001", "--t-final"},
  };
  for (const auto& [flags, mentioned] : cases) {
    const AppRun run = runApp(kCircleApp, flags);
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
    CHECK(!run.crashed());
    CHECK_THAT(run.output, Contains(mentioned));
  }
}

TEST_CASE("circle app: a run whose first KKT solve fails exits 1, says why and still writes metrics.json",
          "[apps][errors]") {
  for (const std::string flags : {"--x0 1e200", "--beta 1e200", "--mass 1e-320"}) {
    const auto dir = freshOutputDir("circle_fails_at_start");
    const AppRun run = runApp(kCircleApp, flags + " --out '" + dir.string() + "'");
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Contains("run failed: KKT solve failed"));
    CHECK_THAT(run.output, Contains("Max |phi|: n/a"));
    const auto m = readJson(dir / "metrics.json");
    CHECK(m["status"] == "failed");
    CHECK(!m["message"].get<std::string>().empty());
    CHECK(m["max_abs_phi"].is_null());
    CHECK(m["max_abs_phi_after_1s"].is_null());
    CHECK(m["phi_final"].is_null());
    CHECK(m["phi_at_t"].empty());
    CHECK(!std::filesystem::exists(dir / "phi.png"));
  }
  // Without --out the failure is reported the same way.
  const AppRun run = runApp(kCircleApp, "--x0 1e200");
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.output, Contains("run failed"));
}

TEST_CASE("circle app: an unwritable --out is an error with a message, before any run", "[apps][errors]") {
  const auto dir = freshOutputDir("circle_unwritable");
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "a_file") << "x"; }
  const AppRun run = runApp(kCircleApp, "--out '" + (dir / "a_file" / "sub").string() + "'");
  INFO(run.output);
  CHECK(run.exit_code > 0);
  CHECK(!run.crashed());
  CHECK_THAT(run.output, Contains("a_file"));
  CHECK_THAT(run.output, !Contains("Max |phi|"));
}

TEST_CASE("circle app: a dt that does not divide the report times reports the nearest grid points",
          "[apps][seed002]") {
  const auto dir = freshOutputDir("circle_dt_0.003");
  const AppRun run = runApp(kCircleApp, "--dt 0.003 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("not a multiple of dt: 1667 steps, the run ends at t = 5.001 s"));
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["steps"] == 1667);
  CHECK(m["t_end"].get<double>() == Approx(5.001));
  const std::pair<const char*, double> nearest[] = {
      {"0.1", 0.099}, {"0.5", 0.501}, {"1", 0.999}, {"2", 2.001}, {"5", 5.001}};
  for (const auto& [key, t] : nearest) {
    INFO(key);
    REQUIRE(m["phi_at_t_time"].contains(key));
    CHECK(m["phi_at_t_time"][key].get<double>() == Approx(t).margin(1e-12));
    // At the grid point's own time, φ follows the closed form as closely as at dt 0.005.
    CHECK(std::abs(m["phi_at_t"][key].get<double>() - closedFormPhi(t, 5.0, 10.0, 0.0201)) < 1e-6);
  }
  CHECK(m["max_abs_phi_after_1s"].is_number());
  CHECK(!m.contains("rtol"));
}

TEST_CASE("circle app: a run that ends by 1 s has no 'max |phi| after 1 s'", "[apps][seed002]") {
  for (const std::string t_final : {"1", "0.7"}) {
    const auto dir = freshOutputDir("circle_short_" + t_final);
    const AppRun run = runApp(kCircleApp, "--t-final " + t_final + " --out '" + dir.string() + "'");
    INFO(t_final << ": " << run.output);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("max |phi| after 1 s: n/a"));
    const auto m = readJson(dir / "metrics.json");
    CHECK(m["max_abs_phi_after_1s"].is_null());
    CHECK(m["phi_at_t"].contains("0.5"));
    CHECK(!m["phi_at_t"].contains("2"));
  }
}

TEST_CASE("circle app: CVODE BDF at the lesson's kind of tolerance follows the closed form", "[apps][seed002][adaptive]") {
  const auto dir = freshOutputDir("circle_cvode_bdf");
  const AppRun run = runApp(kCircleApp, "--integrator cvode_bdf --rtol 1e-8 --atol 1e-10 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["integrator"] == "cvode_bdf");
  CHECK(m["rtol"] == 1e-8);
  CHECK(m["atol"] == 1e-10);
  CHECK(std::abs(m["phi_at_t"]["0.5"].get<double>() - closedFormPhi(0.5, 5.0, 10.0, 0.0201)) < 1e-6);
  CHECK(m["phi_at_t_time"]["0.5"].get<double>() == Approx(0.5).margin(1e-12));
  CHECK(m["steps"].get<long>() > 0);
  CHECK(m["rhs_evaluations"].get<long>() > m["steps"].get<long>());
  CHECK(m["jacobian_evaluations"].get<long>() > 0);
  for (const char* key : {"error_test_failures", "convergence_failures"}) {
    INFO(key);
    CHECK(m[key].is_number_integer());
  }
}

TEST_CASE("circle app: ida_ggl reports that it drops Baumgarte", "[apps][seed002][adaptive]") {
  const auto dir = freshOutputDir("circle_ida_ggl");
  const AppRun run = runApp(kCircleApp, "--integrator ida_ggl --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["rtol"] == 1e-6);
  CHECK(m["atol"] == 1e-9);
  CHECK_THAT(m["notes"].get<std::string>(), Contains("ida_ggl"));
  CHECK(m["max_abs_phi_after_1s"].get<double>() < 1e-5);
}

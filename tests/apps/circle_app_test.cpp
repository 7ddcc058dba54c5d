// kktdae-circle against seed 002's lesson: its numbers, its outputs, its errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {
const std::string kApp = KKTDAE_CIRCLE_APP;

/// Closed-form Baumgarte error of the circle from rest at φ(0) = e0: under-damped, roots −α ± iω_d.
double closedFormPhi(double t, double alpha, double beta, double e0) {
  const double wd = std::sqrt(beta * beta - alpha * alpha);
  return e0 * std::exp(-alpha * t) * (std::cos(wd * t) + alpha / wd * std::sin(wd * t));
}
}  // namespace

TEST_CASE("circle app: the lesson's run reports its starting error and the decay after it", "[apps][seed002]") {
  const auto dir = freshOutputDir("circle_default");
  const AppRun run = runApp(kApp, "--out '" + dir.string() + "'");
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

TEST_CASE("circle app: two runs are byte-identical; Schur and block agree", "[apps][smoke]") {
  const auto a = freshOutputDir("circle_a"), b = freshOutputDir("circle_b"), c = freshOutputDir("circle_schur");
  REQUIRE(runApp(kApp, "--out '" + a.string() + "'").exit_code == 0);
  REQUIRE(runApp(kApp, "--out '" + b.string() + "'").exit_code == 0);
  REQUIRE(runApp(kApp, "--form schur --out '" + c.string() + "'").exit_code == 0);
  CHECK(readFile(a / "metrics.json") == readFile(b / "metrics.json"));
  CHECK(readFile(a / "circle.csv") == readFile(b / "circle.csv"));
  const auto block = readJson(a / "metrics.json"), schur = readJson(c / "metrics.json");
  CHECK(schur["phi_final"].get<double>() == Approx(block["phi_final"].get<double>()).margin(1e-14));
}

TEST_CASE("circle app: bad flags give a usage error and a non-zero exit", "[apps][errors]") {
  for (const std::string flags : {"--dt 0", "--dt -1", "--dt nan", "--dt 0.003", "--alpha -1", "--beta nan",
                                  "--integrator cvode", "--t-final 0", "--mass 0", "--bogus"}) {
    const AppRun run = runApp(kApp, flags);
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
    CHECK(!run.output.empty());
  }
}

// kktdae-sensitivity: the slider-crank's G and dG/dp against the reference at rtol 1e-10,
// deterministic metrics, central differences, and the usage errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

TEST_CASE("sensitivity app: forward ida_ggl at rtol 1e-10 meets the slider-crank reference", "[apps][sensitivity]") {
  const auto a = freshOutputDir("sensitivity_forward_a"), b = freshOutputDir("sensitivity_forward_b");
  const std::string flags = "--problem slider_crank --method forward --rtol 1e-10 --out ";
  const AppRun run = runApp(kSensitivityApp, flags + "'" + a.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(a / "metrics.json");
  CHECK(m["integrator"] == "ida_ggl");
  CHECK(m["atol"].get<double>() == 1e-10);  // atol defaults to rtol
  CHECK(std::abs(m["G"].get<double>() - 3.336606799483) < 1e-8 * 3.336606799483);
  CHECK(std::abs(m["dG_dp"]["k"].get<double>() - 0.333448105) < 1e-8 * 0.333448105 + 2e-9);
  CHECK(std::abs(m["dG_dp"]["c"].get<double>() + 0.363754034) < 1e-8 * 0.363754034 + 1e-9);
  CHECK(m["steps"].get<long>() > 0);
  CHECK(m["sensitivity_residual_evaluations"].get<long>() > 0);
  CHECK(readJson(a / "timing.json")["plain_run"]["steps"].get<long>() > 0);
  CHECK(readJson(a / "manifest.json")["status"] == "complete");
  REQUIRE(runApp(kSensitivityApp, flags + "'" + b.string() + "'").exit_code == 0);
  CHECK(readFile(a / "metrics.json") == readFile(b / "metrics.json"));
}

TEST_CASE("sensitivity app: central differences with ida_index1 agree with the reference to their accuracy",
          "[apps][sensitivity]") {
  const auto dir = freshOutputDir("sensitivity_fd");
  const AppRun run = runApp(kSensitivityApp, "--method fd --integrator ida_index1 --rtol 1e-9 --atol 1e-11 --out '" +
                                                 dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["method"] == "fd");
  CHECK(m["runs"].get<long>() == 5);
  CHECK(m["atol"].get<double>() == 1e-11);
  // Differences of runs that take different steps: measured 2.0e-5 (k) and 1.6e-6 (c) off.
  CHECK(std::abs(m["dG_dp"]["k"].get<double>() - 0.333448105) < 1e-4);
  CHECK(std::abs(m["dG_dp"]["c"].get<double>() + 0.363754034) < 1e-4);
}

TEST_CASE("sensitivity app: an unsupported integrator or method is a usage error naming it", "[apps][sensitivity]") {
  const auto dir = freshOutputDir("sensitivity_usage");
  const AppRun cvode = runApp(kSensitivityApp, "--integrator cvode_bdf --out '" + dir.string() + "'");
  CHECK(cvode.exit_code == 2);
  CHECK_THAT(cvode.output, Contains("cvode_bdf"));
  const AppRun method = runApp(kSensitivityApp, "--method adjoint --out '" + dir.string() + "'");
  CHECK(method.exit_code == 2);
  CHECK_THAT(method.output, Contains("adjoint"));
  CHECK_FALSE(std::filesystem::exists(dir / "metrics.json"));
}

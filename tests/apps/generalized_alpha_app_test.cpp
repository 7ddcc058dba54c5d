// --integrator generalized_alpha|hht with --rho-inf / --hht-alpha in kktdae-constraints and
// kktdae-circle: runs that succeed, and out-of-range values that are usage errors.
#include <catch2/catch.hpp>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

TEST_CASE("generalized-alpha apps: constraints and circle run generalized_alpha and hht, bad --rho-inf and "
          "--hht-alpha are usage errors",
          "[apps][generalized_alpha]") {
  const std::string constraints = KKTDAE_CONSTRAINTS_APP, circle = KKTDAE_CIRCLE_APP;
  {
    const auto dir = freshOutputDir("galpha_constraints");
    const AppRun run = runApp(constraints, "--integrator generalized_alpha --rho-inf 0.5 --steps 200 --tilt 0.3 "
                                           "--stabilization all --no-rerun --out '" + dir.string() + "'");
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("generalized_alpha ignores"));  // the Baumgarte mode's note
  }
  {
    const auto dir = freshOutputDir("galpha_circle");
    const AppRun run = runApp(circle, "--integrator hht --hht-alpha -0.3 --out '" + dir.string() + "'");
    INFO(run.output);
    CHECK(run.exit_code == 0);
  }
  const auto dir = freshOutputDir("galpha_bad");
  const AppRun rho = runApp(constraints, "--integrator generalized_alpha --rho-inf 1.5 --out '" + dir.string() + "'");
  CHECK(rho.exit_code == 2);
  CHECK_THAT(rho.output, Contains("--rho-inf"));
  const AppRun alpha = runApp(circle, "--integrator hht --hht-alpha -0.5 --out '" + dir.string() + "'");
  CHECK(alpha.exit_code == 2);
  CHECK_THAT(alpha.output, Contains("--hht-alpha"));
  const AppRun automatic = runApp(constraints, "--integrator hht --baumgarte auto --out '" + dir.string() + "'");
  CHECK(automatic.exit_code == 2);
  CHECK_THAT(automatic.output, Contains("uses no Baumgarte gain"));
}

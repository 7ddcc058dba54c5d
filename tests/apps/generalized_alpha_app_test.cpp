// --integrator generalized_alpha|hht with --rho-inf / --hht-alpha in kktdae-constraints and
// kktdae-circle: runs that succeed, and out-of-range values that are usage errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

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

TEST_CASE("generalized-alpha apps: constraints and circle refuse --rho-inf and --hht-alpha for an integrator they do "
          "not set, as compare does",
          "[apps][generalized_alpha]") {
  const auto dir = freshOutputDir("galpha_not_applying");
  const std::string out = " --out '" + dir.string() + "'";
  for (const std::string& app : {std::string(KKTDAE_CONSTRAINTS_APP), std::string(KKTDAE_CIRCLE_APP)}) {
    for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
             {"--rho-inf 0.5", "--rho-inf: applies to generalized_alpha only, which --integrator "},  // the default
             {"--integrator rk4 --rho-inf 0.5",
              "--rho-inf: applies to generalized_alpha only, which --integrator rk4 does not run"},
             {"--integrator hht --rho-inf 0.5",
              "--rho-inf: applies to generalized_alpha only, which --integrator hht does not run"},
             {"--integrator generalized_alpha --hht-alpha -0.2",
              "--hht-alpha: applies to hht only, which --integrator generalized_alpha does not run"},
             {"--integrator ida_ggl --hht-alpha -0.2",
              "--hht-alpha: applies to hht only, which --integrator ida_ggl does not run"}}) {
      const AppRun run = runApp(app, flags + out);
      INFO(app << " " << flags << " -> " << run.exit_code << ": " << run.output);
      CHECK(run.exit_code == 2);
      CHECK_THAT(run.output, Contains(message));
    }
  }
  CHECK(!std::filesystem::exists(dir));  // refused before the run directory is made
}

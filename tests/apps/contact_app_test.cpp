// kktdae-contact as a user runs it: the ball's reference impact times and accumulation time in
// metrics.json, the other two problems running to the end, and usage errors exiting 2.
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

TEST_CASE("contact app: the ball's six impact times to 1e-12 s and zeno_time to 1e-6 s", "[apps][contact]") {
  const auto dir = freshOutputDir("contact_ball");
  const AppRun run = runApp(kContactApp, "--problem ball --method event --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  const double reference[6] = {0.451523640985731, 1.264266194760046, 1.995734493156931,
                               2.654055961714126, 3.246545283415602, 3.779785672946931};
  REQUIRE(m["impacts"].size() >= 6);
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("impact " << i);
    CHECK(std::abs(m["impacts"][i]["t"].get<double>() - reference[i]) <= 1e-12);
    CHECK(m["impacts"][i]["contact"] == "floor");
  }
  CHECK(std::abs(m["impacts"][0]["v_minus"].get<double>() - 4.429446918) <= 1e-9);
  CHECK(std::abs(m["impacts"][0]["v_plus"].get<double>() - 3.986502226) <= 1e-9);
  CHECK(m["impacts"][0]["kinetic_energy_loss"].get<double>() ==
        Approx(m["impacts"][0]["kinetic_energy_loss_closed_form"].get<double>()).epsilon(1e-12));
  CHECK(std::abs(m["zeno_time"].get<double>() - 8.578949179) <= 1e-6);
  for (const auto& impact : m["impacts"]) CHECK(impact["t"].get<double>() < m["zeno_time"].get<double>());
  const auto manifest = readJson(dir / "manifest.json");
  CHECK(manifest["status"] == "complete");
  CHECK(std::filesystem::exists(dir / "recording.csv"));
}

TEST_CASE("contact app: the impact pendulum and the limited chain run to the end", "[apps][contact]") {
  for (const char* problem : {"impact_pendulum", "limited_chain"}) {
    INFO(problem);
    const auto dir = freshOutputDir(std::string("contact_") + problem);
    const AppRun run = runApp(kContactApp, std::string("--problem ") + problem + " --method event --out '" + dir.string() + "'");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const auto m = readJson(dir / "metrics.json");
    CHECK(m["status"] == "ok");
    CHECK(m["t_end"].get<double>() == 10.0);
    CHECK(m["impacts"].size() >= 4);
    CHECK(m["zeno_time"].is_null());
  }
}

TEST_CASE("contact app: unknown problems, methods and integrators are usage errors", "[apps][contact]") {
  CHECK(runApp(kContactApp, "--problem box").exit_code == 2);
  CHECK(runApp(kContactApp, "--method timestep").exit_code == 2);
  const AppRun cvode = runApp(kContactApp, "--integrator cvode_bdf");
  CHECK(cvode.exit_code == 2);
  CHECK_THAT(cvode.output, Contains("cvode_bdf") && Contains("rk4"));
}

// kktdae-constraints against seed 000: the chapter's numbers, numpy's numbers, determinism, and
// what bad flags and blow-ups produce.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

#include "apps/app_runner.hpp"
#include "kktdae/kktdae.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {


nlohmann::json runMetrics(const std::string& name, const std::string& flags) {
  const auto dir = freshOutputDir(name);
  const AppRun run = runApp(kConstraintsApp, flags + " --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  return readJson(dir / "metrics.json");
}

double tipDistance(const nlohmann::json& a, const nlohmann::json& b) {
  const double dx = a[0].get<double>() - b[0].get<double>();
  const double dy = a[1].get<double>() - b[1].get<double>();
  return std::hypot(dx, dy);
}

}  // namespace

TEST_CASE("constraints app: the chapter's default run prints the chapter's table", "[apps][seed000]") {
  const auto dir = freshOutputDir("chapter_table");
  const AppRun run = runApp(kConstraintsApp, "--seed 0 --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("integrated double (semi_implicit) for 4000 steps of 0.005 s -> 20.00 s of sim time"));
  CHECK_THAT(run.output, Contains("none                  3.8401e-01        3.8401e-01      4.2709e-01"));
  CHECK_THAT(run.output, Contains("baumgarte             2.3470e-02        1.4367e-03      3.2485e-01"));
  CHECK_THAT(run.output, Contains("(stabilization holds the links): as expected"));
  // The chapter's printed digits: none 0.384 / 0.384 / 0.43, baumgarte 0.023 / 0.0014 / 0.32.
  const auto m = readJson(dir / "metrics.json")["results"];
  CHECK(m["none"]["max_violation"].get<double>() == Approx(0.384).margin(0.0005));
  CHECK(m["none"]["final_violation"].get<double>() == Approx(0.384).margin(0.0005));
  CHECK(m["none"]["energy_rel_max"].get<double>() == Approx(0.43).margin(0.005));
  CHECK(m["baumgarte"]["max_violation"].get<double>() == Approx(0.023).margin(0.0005));
  CHECK(m["baumgarte"]["final_violation"].get<double>() == Approx(0.0014).margin(0.00005));
  CHECK(m["baumgarte"]["energy_rel_max"].get<double>() == Approx(0.32).margin(0.005));
}

TEST_CASE("constraints app: RK4 pendulum without stabilization, the chapter's correctness check",
          "[apps][seed000]") {
  const auto m = runMetrics("pendulum_rk4", "--system pendulum --integrator rk4 --stabilization none");
  CHECK(m["results"].size() == 1);
  CHECK(m["results"]["none"]["max_violation"].get<double>() == Approx(8.8e-6).margin(0.05e-6));
  CHECK(m["results"]["none"]["energy_rel_max"].get<double>() == Approx(1.2e-5).margin(0.05e-5));
}

TEST_CASE("constraints app: seeds 0 and 1 end about 1.1 apart at the tip", "[apps][seed000]") {
  const auto seed0 = runMetrics("seed0", "--seed 0 --stabilization baumgarte");
  const auto seed1 = runMetrics("seed1", "--seed 1 --stabilization baumgarte");
  const double distance = tipDistance(seed0["results"]["baumgarte"]["tip_final"], seed1["results"]["baumgarte"]["tip_final"]);
  CHECK(distance == Approx(1.1).margin(0.05));
}

TEST_CASE("constraints app: two --smoke runs write byte-identical metrics, recording and manifest", "[apps][smoke]") {
  const auto a = freshOutputDir("smoke_a"), b = freshOutputDir("smoke_b");
  for (const auto& dir : {a, b}) {
    const AppRun run = runApp(kConstraintsApp, "--smoke --out '" + dir.string() + "'");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
  }
  CHECK(readJson(a / "metrics.json")["steps"] == 800);
  // The manifest too: it lists timing.json, whose size follows the wall clock, without a size.
  for (const char* file : {"metrics.json", "recording.csv", "manifest.json"}) {
    INFO(file);
    const std::string first = readFile(a / file);
    CHECK(!first.empty());
    CHECK(first == readFile(b / file));
  }
}

TEST_CASE("constraints app: explicit Euler with Baumgarte diverges, is reported and everything is written",
          "[apps][diverged]") {
  const auto dir = freshOutputDir("diverged");
  const AppRun run = runApp(kConstraintsApp, "--integrator euler --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("diverged") && Contains("UNEXPECTED"));
  const auto m = readJson(dir / "metrics.json")["results"];
  CHECK(m["none"]["status"] == "ok");
  CHECK(m["baumgarte"]["status"] == "diverged");
  const long step = m["baumgarte"]["diverged_at_step"].get<long>();
  CHECK(step > 100);
  CHECK(step < 4000);
  CHECK(m["baumgarte"]["steps_completed"].get<long>() == step - 1);
  CHECK(m["baumgarte"]["energy_rel_max"].is_number());
  const std::string csv = readFile(dir / "recording.csv");
  CHECK_THAT(csv, Contains(",,,,\n"));  // the diverged mode's columns end, the file goes on
}

TEST_CASE("constraints app: --links, --form, --tilt", "[apps]") {
  const auto m = runMetrics("links5", "--links 5 --form block --tilt 0.25 --steps 200");
  CHECK(m["system"] == "chain");
  CHECK(m["links"] == 5);
  CHECK(m["form"] == "block");
  CHECK(m["tilt"] == 0.25);
  const auto schur = runMetrics("links5_schur", "--links 5 --form schur --tilt 0.25 --steps 200");
  for (const char* mode : {"none", "baumgarte"}) {
    CHECK(m["results"][mode]["max_violation"].get<double>() ==
          Approx(schur["results"][mode]["max_violation"].get<double>()).epsilon(1e-8));
  }
  CHECK(runMetrics("links2", "--links 2 --steps 10")["system"] == "double");
}

TEST_CASE("constraints app: bad flags give a usage error and a non-zero exit, never a crash", "[apps][errors]") {
  const auto dir = freshOutputDir("bad_flags");
  const std::string out = " --no-rerun --out '" + dir.string() + "'";
  const std::pair<std::string, std::string> cases[] = {
      {"--dt 0", "--dt"},          {"--dt -0.1", "--dt"},        {"--dt nan", "--dt"},
      {"--dt inf", "--dt"},        {"--system quad", "--system"}, {"--steps -5", "--steps"},
      {"--frobnicate", "frobnicate"}, {"--seed -1", "--seed"},   {"--baumgarte fast", "--baumgarte"},
      {"--baumgarte -3", "--baumgarte"}, {"--links 0", "--links"}, {"--form lu", "--form"},
      {"--integrator leapfrog", "--integrator"}, {"--device cuda", "--device"},
      {"--seed 1e3", "--seed"},    {"--seed 18446744073709551616", "--seed"}, {"--seed 12abc", "--seed"},
      {"--seed ''", "--seed"},     {"--steps 1000000001", "--steps"}, {"--steps 1e10", "--steps"},
      {"--rtol 0", "--rtol"},      {"--atol -1", "--atol"},
  };
  for (const auto& [flags, mentioned] : cases) {
    const AppRun run = runApp(kConstraintsApp, flags + out);
    INFO(flags << " -> exit " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
    CHECK(!run.crashed());
    CHECK_THAT(run.output, Contains(mentioned));
  }
  // An --out that cannot be created: a path below a regular file.
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "a_file") << "x"; }
  const AppRun run = runApp(kConstraintsApp, "--steps 5 --out '" + (dir / "a_file" / "sub").string() + "'");
  INFO(run.output);
  CHECK(run.exit_code > 0);
  CHECK_THAT(run.output, Contains("a_file"));
}

TEST_CASE("constraints app: --seed takes numpy's whole range, 0 to 2^64 - 1, exactly", "[apps][seed000]") {
  // numpy: np.random.default_rng(S).uniform(-0.05, 0.05).
  const std::pair<std::string, double> cases[] = {
      {"0", 0.013696168732145436},
      {"4294967301", 0.027420418037388122},
      {"18446744073709551615", 0.018002667896169305},
  };
  for (const auto& [seed, tilt] : cases) {
    const auto m = runMetrics("seed_" + seed, "--seed " + seed + " --steps 10");
    INFO("seed " << seed);
    CHECK(m["seed"].get<std::uint64_t>() == std::stoull(seed));
    CHECK(m["tilt"].get<double>() == tilt);
  }
  const auto dir = freshOutputDir("seed_text");
  REQUIRE(runApp(kConstraintsApp, "--seed 18446744073709551615 --steps 10 --no-rerun --out '" + dir.string() + "'").exit_code == 0);
  CHECK_THAT(readFile(dir / "metrics.json"), Contains("\"seed\": 18446744073709551615,"));
}

TEST_CASE("constraints app: --no-rerun writes metrics, timing and the manifest only, the default run adds the recording",
          "[apps][files]") {
  const auto quiet = freshOutputDir("files_no_rerun");
  REQUIRE(runApp(kConstraintsApp, "--steps 50 --no-rerun --out '" + quiet.string() + "'").exit_code == 0);
  CHECK(std::filesystem::exists(quiet / "metrics.json"));
  CHECK(std::filesystem::exists(quiet / "timing.json"));
  for (const auto& entry : std::filesystem::directory_iterator(quiet)) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    CHECK((name == "metrics.json" || name == "timing.json" || name == "manifest.json"));
  }

  const auto full = freshOutputDir("files_rerun");
  const AppRun run = runApp(kConstraintsApp, "--steps 50 --out '" + full.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  for (const char* file : {"metrics.json", "timing.json", "recording.csv", "violation.gp", "energy.gp", "tip_path.gp"}) {
    INFO(file);
    CHECK(std::filesystem::exists(full / file));
  }
  if (gnuplotOnPath()) {
    for (const char* png : {"violation.png", "energy.png", "tip_path.png"}) {
      INFO(png);
      CHECK(std::filesystem::file_size(full / png) > 0);
    }
  } else {
    CHECK_THAT(run.output, Contains("gnuplot not found"));
  }
  // The energy panel shows the drift relative to the energy scale on a log axis.
  CHECK_THAT(readFile(full / "energy.gp"), Contains("set logscale y"));
}

TEST_CASE("constraints app: three runs started into one --out at once leave one run's whole files",
          "[apps][files]") {
  // Each either holds the directory's lock and runs, or finds it in use and is refused (exit 2).
  const auto dir = freshOutputDir("concurrent");
  const auto reference = freshOutputDir("concurrent_reference");
  REQUIRE(runApp(kConstraintsApp, "--smoke --out '" + reference.string() + "'").exit_code == 0);
  const std::string one = "'" + kConstraintsApp + "' --smoke --out '" + dir.string() + "' >/dev/null 2>&1";
  const AppRun all = runShell(one + " & a=$!; " + one + " & b=$!; " + one + "; c=$?; wait $a; ra=$?; wait $b; rb=$?; "
                              "echo codes $ra $rb $c");
  INFO(all.output);
  std::istringstream codes(all.output.substr(all.output.find("codes ") + 6));
  int ran = 0;
  for (int k = 0; k < 3; ++k) {
    int code = -1;
    codes >> code;
    CHECK((code == 0 || code == 2));
    ran += code == 0;
  }
  CHECK(ran >= 1);
  CHECK(readJson(dir / "manifest.json")["status"] == "complete");
  CHECK(readFile(dir / "metrics.json") == readFile(reference / "metrics.json"));
  CHECK(readFile(dir / "recording.csv") == readFile(reference / "recording.csv"));
  // Every temporary was renamed or removed.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    CHECK(std::filesystem::exists(reference / name));
  }
}

TEST_CASE("constraints app: ida_ggl without stabilization holds the links by itself", "[apps][adaptive]") {
  const auto dir = freshOutputDir("ida_ggl_none");
  const AppRun run = runApp(kConstraintsApp, "--integrator ida_ggl --stabilization none --steps 400 --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["rtol"] == 1e-6);
  CHECK(m["atol"] == 1e-9);
  CHECK(m["results"].size() == 1);
  CHECK(m["results"]["none"]["status"] == "ok");
  CHECK(m["results"]["none"]["max_violation"].get<double>() < 1e-5);
}

TEST_CASE("constraints app: ida_ggl with Baumgarte says it ignores it", "[apps][adaptive]") {
  const auto dir = freshOutputDir("ida_ggl_baumgarte");
  const AppRun run = runApp(kConstraintsApp, "--integrator ida_ggl --stabilization baumgarte --steps 100 --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("notes (baumgarte): ida_ggl ignores"));
}

TEST_CASE("constraints app: fixed-step runs carry no tolerances", "[apps]") {
  const auto m = runMetrics("no_tolerances", "--steps 10");
  CHECK(!m.contains("rtol"));
  CHECK(!m.contains("atol"));
}

TEST_CASE("constraints app: a mode that fails at its first state reports n/a and nulls, not zeros", "[apps][diverged]") {
  const auto dir = freshOutputDir("fails_at_start");
  const AppRun run = runApp(kConstraintsApp, "--baumgarte 1e200 --steps 50 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("baumgarte                    n/a               n/a             n/a   diverged"));
  const auto m = readJson(dir / "metrics.json")["results"];
  CHECK(m["none"]["max_violation"].is_number());
  for (const char* key : {"max_violation", "final_violation", "energy_rel_max", "tip_final"}) {
    INFO(key);
    CHECK(m["baumgarte"][key].is_null());
  }
  CHECK(m["baumgarte"]["status"] == "diverged");
  CHECK(m["baumgarte"]["steps_completed"] == 0);
}

TEST_CASE("constraints app: --stabilization every runs none, baumgarte, projection and soft side by side",
          "[apps][stabilization]") {
  const auto dir = freshOutputDir("every");
  const AppRun run = runApp(KKTDAE_CONSTRAINTS_APP, "--stabilization every --steps 800 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("proj. iter.") && Contains("as expected"));
  const auto m = readJson(dir / "metrics.json")["results"];
  for (const char* mode : {"none", "baumgarte", "projection", "soft"}) {
    INFO(mode);
    REQUIRE(m.contains(mode));
    CHECK(m[mode]["status"] == "ok");
  }
  CHECK(m["projection"]["max_violation"].get<double>() <= 1e-10);
  CHECK(m["projection"]["projection_iterations"].get<long>() >= 800);
  CHECK(m["none"]["projection_iterations"].get<long>() == 0);
  // Soft constraints yield: their error sits between the hard modes'.
  CHECK(m["soft"]["max_violation"].get<double>() < m["none"]["max_violation"].get<double>());
  CHECK(m["soft"]["max_violation"].get<double>() > m["projection"]["max_violation"].get<double>());
}

TEST_CASE("constraints app: --baumgarte auto asks recommendBaumgarte for the integrator and dt", "[apps][errdyn]") {
  const auto semi = readJson([&] {
    const auto dir = freshOutputDir("auto_semi");
    REQUIRE(runApp(KKTDAE_CONSTRAINTS_APP, "--baumgarte auto --no-rerun --out '" + dir.string() + "'").exit_code == 0);
    return dir / "metrics.json";
  }());
  CHECK(semi["baumgarte_auto"] == true);
  CHECK(semi["baumgarte"].get<double>() == Approx(0.5 * 2.0 * (std::sqrt(2.0) - 1.0) / 0.005));
  // The recommendation holds the chapter's links tighter than the chapter's omega = 20 (2.3e-2).
  CHECK(semi["results"]["baumgarte"]["max_violation"].get<double>() < 0.0235 / 2.0);
  const auto rk4 = readJson([&] {
    const auto dir = freshOutputDir("auto_rk4");
    REQUIRE(runApp(KKTDAE_CONSTRAINTS_APP, "--integrator rk4 --baumgarte auto --no-rerun --out '" + dir.string() + "'")
                .exit_code == 0);
    return dir / "metrics.json";
  }());
  CHECK(rk4["baumgarte"].get<double>() == Approx(20.0));
  // An adaptive run's gain comes from one run of the chain without feedback at its tolerance (docs §9).
  auto adaptiveAuto = [](const std::string& integrator) {
    return readJson([&] {
      const auto dir = freshOutputDir("auto_" + integrator);
      REQUIRE(runApp(KKTDAE_CONSTRAINTS_APP, "--integrator " + integrator + " --rtol 1e-7 --steps 400 --baumgarte "
                                             "auto --no-rerun --out '" + dir.string() + "'")
                  .exit_code == 0);
      return dir / "metrics.json";
    }());
  };
  const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(2));  // the default --system double
  // cvode_bdf takes the chain's motion rate...
  const kktdae::MotionTimeScale scale =
      kktdae::measureMotionTimeScale(chain, chain.initialState(0.0), 2.0, kktdae::Integrator::CvodeBdf, 1e-7);
  CHECK(adaptiveAuto("cvode_bdf")["baumgarte"].get<double>() == Approx(scale.motion_rate));
  // ...ida_index1 the share of its own step's knee 1/h that the run's radians of motion are worth,
  // Omega T with T the run's length (400 steps of 0.005 s).
  const kktdae::MotionTimeScale ida_scale =
      kktdae::measureMotionTimeScale(chain, chain.initialState(0.0), 2.0, kktdae::Integrator::IdaIndex1, 1e-7);
  const double ida_omega = adaptiveAuto("ida_index1")["baumgarte"].get<double>();
  CHECK(ida_omega == Approx(kktdae::kIdaIndex1OmegaStepPerRadian * ida_scale.motion_rate * 2.0 / ida_scale.mean_step));
  CHECK(ida_omega > 2.0 * ida_scale.motion_rate);
  const AppRun ggl = runApp(KKTDAE_CONSTRAINTS_APP, "--integrator ida_ggl --baumgarte auto --no-rerun --out /tmp/x");
  CHECK(ggl.exit_code > 0);
  CHECK_THAT(ggl.output, Contains("--baumgarte"));
}

TEST_CASE("constraints app: --baumgarte auto-measured takes the safety factor from the chain's bisected limit",
          "[apps][errdyn]") {
  auto metrics = [](const std::string& name, const std::string& flags) {
    const auto dir = freshOutputDir(name);
    const AppRun run = runApp(KKTDAE_CONSTRAINTS_APP, flags + " --no-rerun --out '" + dir.string() + "'");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    return readJson(dir / "metrics.json");
  };
  // Semi-implicit Euler keeps its linear limit on the moving chain (docs §3, §5): half of it.
  const auto semi = metrics("auto_measured_semi", "--baumgarte auto-measured --tilt 0.3 --dt 0.01 --steps 400");
  CHECK(semi["baumgarte_auto"] == false);
  CHECK(semi["baumgarte_auto_measured"] == true);
  const double semi_limit = semi["baumgarte_measured_limit"].get<double>();
  CHECK(semi_limit == Approx(kktdae::baumgarteStabilityLimit(kktdae::Integrator::SemiImplicitEuler, 1.0)).margin(2e-3));
  CHECK(semi["baumgarte"].get<double>() == Approx(0.5 * semi_limit / 0.01));
  CHECK_THAT(semi["baumgarte_reasoning"].get<std::string>(), Contains("measured on the model"));
  // RK4: the library's own bisection over the run's dt and length, from the run's tilt; its limit
  // sits below the closed form, and the gain stays RK4's gentle dt*omega = 0.1.
  const auto rk4 = metrics("auto_measured_rk4", "--integrator rk4 --baumgarte auto-measured --tilt 0.3 --dt 0.01 "
                                                "--steps 200");
  const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(2));
  kktdae::ModelGuidanceOptions guidance;
  guidance.horizon = 2.0;
  guidance.min_steps = 10;
  const kktdae::ModelGuidance g =
      kktdae::recommendBaumgarteForModel(chain, chain.initialState(0.3), kktdae::Integrator::Rk4, 0.01, guidance);
  REQUIRE(g.limit.found);
  CHECK(rk4["baumgarte_measured_limit"].get<double>() == g.limit.limit);
  CHECK(g.limit.limit < kktdae::baumgarteStabilityLimit(kktdae::Integrator::Rk4, 1.0));
  CHECK(rk4["baumgarte"].get<double>() == Approx(0.1 / 0.01));
  // Plain auto keeps its files: no measured fields.
  const auto plain = metrics("auto_plain", "--baumgarte auto --steps 10");
  CHECK(!plain.contains("baumgarte_measured_limit"));
  CHECK(!plain.contains("baumgarte_auto_measured"));
}

TEST_CASE("constraints app: --baumgarte auto-scan measures the adaptive gain on the chain, the library's answer to the bit",
          "[apps][errdyn]") {
  const auto dir = freshOutputDir("auto_scan");
  const AppRun run = runApp(KKTDAE_CONSTRAINTS_APP, "--integrator cvode_bdf --rtol 1e-5 --dt 0.005 --steps 200 "
                                                    "--baumgarte auto-scan --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  // The same call the app makes: the run's 1 s, its rtol, the chain from tilt 0.
  const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(2));
  kktdae::ModelGuidanceOptions guidance;
  guidance.horizon = 1.0;
  guidance.tolerance = 1e-5;
  guidance.adaptive_mode = kktdae::AdaptiveGainMode::Scan;
  guidance.tuner.parallel.threads = 1;  // the app uses all cores: the same bytes
  const kktdae::ModelGuidance g =
      kktdae::recommendBaumgarteForModel(chain, chain.initialState(0.0), kktdae::Integrator::CvodeBdf, 0.005, guidance);
  REQUIRE(g.tuning.used);
  CHECK(m["baumgarte"].get<double>() == g.recommendation.omega);
  CHECK(m["baumgarte_auto"] == false);
  const auto& scan = m["baumgarte_auto_scan"];
  CHECK(scan["used"] == true);
  CHECK(scan["runs"].get<long>() == g.tuning.runs);
  CHECK(scan["model_calls"].get<long>() == g.tuning.model_calls);
  CHECK(scan["band_low"].get<double>() <= m["baumgarte"].get<double>());
  CHECK(m["baumgarte"].get<double>() <= scan["band_high"].get<double>());
  CHECK(scan["rule_omega"].get<double>() == g.tuning.rule_omega);
  CHECK(scan["refined"] == g.tuning.refined);
  CHECK(scan["refined"] == true);  // the tuner's default
  CHECK_THAT(m["baumgarte_reasoning"].get<std::string>(), Contains("measured on the model"));
  CHECK(m["results"]["baumgarte"]["status"] == "ok");
  // A fixed-step integrator has its own measured mode.
  const AppRun fixed = runApp(KKTDAE_CONSTRAINTS_APP, "--integrator rk4 --baumgarte auto-scan --no-rerun --out /tmp/x");
  CHECK(fixed.exit_code > 0);
  CHECK_THAT(fixed.output, Contains("auto-measured"));
  // Plain auto keeps its files: no scan fields.
  const auto plain_dir = freshOutputDir("auto_scan_plain");
  REQUIRE(runApp(KKTDAE_CONSTRAINTS_APP, "--integrator cvode_bdf --steps 10 --baumgarte auto --no-rerun --out '" +
                                             plain_dir.string() + "'")
              .exit_code == 0);
  CHECK(!readJson(plain_dir / "metrics.json").contains("baumgarte_auto_scan"));
}

TEST_CASE("constraints app: --stop-when ends each mode where the condition becomes true and writes the event",
          "[apps][events]") {
  // The double pendulum from horizontal: the inner link's tension first becomes a push at
  // t ≈ 1.385 s (docs/events.md); the modes' drift moves it by a few hundredths.
  const auto m = runMetrics("stop_when", "--tilt 0 --steps 400 --stop-when 'tension[0] < 0'");
  CHECK(m["stop_when"] == "tension[0] < 0");
  for (const char* mode : {"none", "baumgarte"}) {
    const auto& r = m["results"][mode];
    INFO(mode << ": " << r.dump());
    CHECK(r["status"] == "stopped_by_event");
    REQUIRE(r["events"].size() == 1);
    const auto& event = r["events"][0];
    CHECK(event["name"] == "tension[0] < 0");
    CHECK(event["direction"] == "falling");
    CHECK(event["time"].get<double>() == Approx(1.385).margin(0.06));
    CHECK(event["step"] == r["steps_completed"]);
    CHECK(event["lambda"][0].get<double>() >= 0.0);  // λ₀ ≥ 0: no longer pulling
    CHECK(event["q"].size() == 6);
    CHECK(r["diverged_at_step"].is_null());
  }
  // Without the flag the chapter's keys are all there is.
  const auto plain = runMetrics("stop_when_plain", "--tilt 0 --steps 40");
  CHECK_FALSE(plain.contains("stop_when"));
  CHECK_FALSE(plain["results"]["none"].contains("events"));

  const auto dir = freshOutputDir("stop_when_bad");
  for (const char* bad : {"'tension[2]<0'", "'z<0'", "'x<'", "'q[6]>1'", "'x<0<1'", "'y>nan'"}) {
    const AppRun run = runApp(kConstraintsApp, std::string("--stop-when ") + bad + " --no-rerun --out '" + dir.string() + "'");
    INFO(bad << " -> exit " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
    CHECK(!run.crashed());
    CHECK_THAT(run.output, Contains("--stop-when"));
  }
}

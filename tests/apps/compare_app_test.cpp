// kktdae-compare: its files, and numbers that follow from the integrators' orders rather than
// from a recorded output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {
/// The rows of a CSV file, split on commas outside double quotes.
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    rows.push_back(fields);
  }
  return rows;
}
}  // namespace

namespace {

/// (integrator, dt or rtol) → row of compare.json.
std::map<std::pair<std::string, double>, nlohmann::json> rowsBySetting(const nlohmann::json& doc) {
  std::map<std::pair<std::string, double>, nlohmann::json> rows;
  for (const auto& row : doc["rows"]) {
    const bool adaptive = row["kind"] == "adaptive";
    rows[{row["integrator"].get<std::string>(), (adaptive ? row["rtol"] : row["dt"]).get<double>()}] = row;
  }
  return rows;
}

double errorOf(const std::map<std::pair<std::string, double>, nlohmann::json>& rows, const std::string& integrator,
               double setting) {
  const auto found = rows.find({integrator, setting});
  REQUIRE(found != rows.end());
  return found->second["error_at_T"].get<double>();
}
}  // namespace

TEST_CASE("compare app: a short sweep writes its files and every error follows its integrator's order",
          "[apps][compare]") {
  const auto dir = freshOutputDir("compare_short");
  const AppRun run = runApp(kCompareApp, "--horizon 0.5 --rtols 1e-4,1e-6 --dts 0.02,0.01,0.005 --repeats 1 --out '" +
                                      dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("reference cross-check"));
  CHECK_THAT(run.output, Contains("rk4"));

  const auto doc = readJson(dir / "compare.json");
  // 6 fixed-step integrators (euler, semi_implicit, rk4, rattle, generalized_alpha, hht) x 3 dts
  // + 4 adaptive x 2 rtols.
  REQUIRE(doc["rows"].size() == 26);
  for (const auto& row : doc["rows"]) {
    INFO(row.dump());
    CHECK(row["status"] == "ok");
    REQUIRE(row["error_at_T"].is_number());
    CHECK(row["error_at_T"].get<double>() > 0.0);
    CHECK(!row.contains("wall_seconds"));  // measured times live in timing.json only
    if (row["kind"] == "fixed_step") {
      // A fixed-step run takes exactly T / dt steps.
      CHECK(row["steps"].get<long>() == std::lround(0.5 / row["dt"].get<double>()));
    }
  }

  // The reference (ida_ggl at rtol 1e-12) and the independent Richardson-extrapolated RK4 agree
  // far below every error being measured, and RK4's own error estimate is smaller still.
  const auto& reference = doc["reference"];
  CHECK(reference["cross_check"].get<double>() < 1e-8);
  CHECK(reference["richardson_estimate"].get<double>() < 1e-8);
  CHECK(reference["state_at_T"].size() == 12);  // (q, v) of two particles in 3D

  const auto timing = readJson(dir / "timing.json");
  REQUIRE(timing["rows"].size() == doc["rows"].size());
  for (const auto& row : timing["rows"]) CHECK(row["wall_seconds"].get<double>() >= 0.0);

  const auto rows = rowsBySetting(doc);
  // Global error ∝ dt^p: halving dt twice divides it by 2^(2p) — 256 for RK4, 4 for the Euler
  // methods; the bounds leave room for the pre-asymptotic regime at the coarsest step.
  CHECK(errorOf(rows, "rk4", 0.02) / errorOf(rows, "rk4", 0.005) > 10.0);
  CHECK(errorOf(rows, "euler", 0.02) / errorOf(rows, "euler", 0.005) > 2.0);
  CHECK(errorOf(rows, "semi_implicit", 0.02) / errorOf(rows, "semi_implicit", 0.005) > 2.0);
  CHECK(errorOf(rows, "rattle", 0.02) / errorOf(rows, "rattle", 0.005) > 6.0);  // 16 for order 2
  // RK4 at dt = 0.005 s is five orders of magnitude more accurate than a first-order method there.
  CHECK(errorOf(rows, "rk4", 0.005) < 1e-3 * errorOf(rows, "euler", 0.005));
  // Tolerance-proportional: the global error follows rtol, so a 100-fold tighter tolerance
  // must give at least a 10-fold smaller error.
  for (const std::string integrator : {"cvode_bdf", "cvode_adams", "ida_index1", "ida_ggl"}) {
    INFO(integrator);
    CHECK(errorOf(rows, integrator, 1e-6) < 0.1 * errorOf(rows, integrator, 1e-4));
  }
  // GGL holds φ at the tolerance level without any stabilization (issue 4's bound).
  for (const double rtol : {1e-4, 1e-6}) {
    const auto& row = rows.at({"ida_ggl", rtol});
    CHECK(row["max_phi_inf"].get<double>() <= 10.0 * (rtol + row["atol"].get<double>()));
  }

  // compare.csv: a header and one line per run, with the same integrators in the same order.
  std::istringstream csv(readFile(dir / "compare.csv"));
  std::string line;
  REQUIRE(std::getline(csv, line));
  CHECK(line.rfind("integrator,kind,dt,rtol,atol,error_at_T,", 0) == 0);
  std::size_t lines = 0;
  while (std::getline(csv, line)) {
    INFO(line);
    REQUIRE(lines < doc["rows"].size());
    CHECK(line.rfind(doc["rows"][lines]["integrator"].get<std::string>() + ",", 0) == 0);
    ++lines;
  }
  CHECK(lines == doc["rows"].size());

  // The script renders by hand too (it names its own output); the PNG needs gnuplot.
  const std::string script = readFile(dir / "work_precision.gp");
  CHECK_THAT(script, Contains("if (!exists(\"outfile\")) outfile = 'work_precision.png'"));
  CHECK_THAT(script, Contains("set logscale xy"));
  if (gnuplotOnPath()) CHECK(std::filesystem::file_size(dir / "work_precision.png") > 10000);
}

TEST_CASE("compare app: the circle under Baumgarte in the block form measures integration error only",
          "[apps][compare]") {
  // Started on the circle, the Baumgarte-stabilized solution is the exact one: RK4's error
  // against the (stabilization-free) ida_ggl reference must still fall at fourth order.
  const auto dir = freshOutputDir("compare_circle");
  const AppRun run = runApp(kCompareApp, "--model circle --horizon 0.5 --integrators rk4,cvode_bdf,ida_ggl --dts 0.01,0.005 "
                                  "--rtols 1e-6 --stabilization baumgarte --alpha 5 --beta 10 --form block "
                                  "--repeats 1 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto doc = readJson(dir / "compare.json");
  CHECK(doc["model"]["name"] == "circle");
  CHECK(doc["form"] == "block");
  CHECK(doc["stabilization"]["kind"] == "baumgarte");
  REQUIRE(doc["rows"].size() == 4);
  for (const auto& row : doc["rows"]) CHECK(row["status"] == "ok");
  CHECK(doc["reference"]["cross_check"].get<double>() < 1e-8);
  const auto rows = rowsBySetting(doc);
  // One halving: 2^4 = 16 asymptotically.
  CHECK(errorOf(rows, "rk4", 0.01) / errorOf(rows, "rk4", 0.005) > 8.0);
  CHECK(errorOf(rows, "cvode_bdf", 1e-6) < 1e-3);
}

TEST_CASE("compare app: bad flags give a usage error and a non-zero exit", "[apps][compare][errors]") {
  const auto dir = freshOutputDir("compare_errors");
  const std::string out = " --out '" + dir.string() + "'";
  CHECK(runApp(kCompareApp, "").exit_code > 0);  // --out is required
  for (const std::string flags :
       {"--model sphere", "--links 0", "--model circle --links 3", "--model circle --tilt 0.2", "--tilt nan",
        "--horizon 0", "--horizon -1", "--dts 0.01,abc", "--dts 0.01,,0.005", "--dts 0", "--dts 0.003",
        "--rtols -1e-6", "--rtols nan", "--integrators rk5", "--integrators rk4,rk4", "--form lu",
        "--stabilization soft", "--alpha 5", "--stabilization baumgarte --beta -1", "--repeats 0", "--bogus"}) {
    const AppRun run = runApp(kCompareApp, flags + out);
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code > 0);
    CHECK(!run.output.empty());
  }
}

TEST_CASE("compare app: a failed run's numbers are empty CSV fields with its status, never nan", "[apps][compare]") {
  // rtol 1e-300 (atol 1e-302) is below what any adaptive solver can meet: every such run fails.
  const auto dir = freshOutputDir("compare_failed_rows");
  const AppRun run = runApp(kCompareApp, "--horizon 0.1 --integrators rk4,cvode_bdf --dts 0.01 --rtols 1e-300 --repeats 1 "
                                  "--out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  for (const char* file : {"compare.csv", "timing.csv"}) {
    INFO(file);
    for (const auto& row : csvRows(readFile(dir / file))) {
      for (const std::string& field : row) {
        INFO(field);
        CHECK((field != "nan" && field != "inf" && field != "-inf" && field != "-nan"));
      }
    }
  }
  const auto rows = csvRows(readFile(dir / "compare.csv"));
  REQUIRE(rows.size() == 3);  // the header, rk4, cvode_bdf
  const auto& header = rows[0];
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  REQUIRE(rows[2][0] == "cvode_bdf");
  CHECK(rows[2][column("error_at_T")].empty());  // no error at T…
  CHECK(rows[2][column("status")] != "ok");       // …and the status says why
  CHECK(!rows[2][column("message")].empty());
  CHECK(rows[1][column("status")] == "ok");
  CHECK(!rows[1][column("error_at_T")].empty());
  CHECK(readJson(dir / "compare.json")["rows"][1]["error_at_T"].is_null());
}

TEST_CASE("compare app: two runs of one command write the same bytes outside the timing files", "[apps][compare]") {
  const std::string flags = "--horizon 0.5 --integrators semi_implicit,rk4,cvode_bdf --dts 0.01,0.005 --rtols 1e-5 "
                            "--repeats 1";
  const auto a = freshOutputDir("compare_same_a"), b = freshOutputDir("compare_same_b");
  for (const auto& dir : {a, b}) {
    const AppRun run = runApp(kCompareApp, flags + " --out '" + dir.string() + "'");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
  }
  std::vector<std::string> files = {"compare.csv", "compare.json", "work_precision.gp"};
  if (gnuplotOnPath()) files.emplace_back("work_precision.png");
  for (const std::string& file : files) {
    INFO(file);
    const std::string first = readFile(a / file);
    CHECK(!first.empty());
    CHECK(first == readFile(b / file));
    CHECK_THAT(first, !Contains("wall"));  // not a wall time, not even a label
  }
  // The wall times are measured and kept, in their own files.
  CHECK_THAT(readFile(a / "timing.csv"), Contains("wall_seconds"));
  CHECK_THAT(readFile(a / "timing.gp"), Contains("wall time per run"));
  if (gnuplotOnPath()) CHECK(std::filesystem::file_size(a / "timing.png") > 10000);
}

TEST_CASE("compare app: --event reports each run's event-time error beside its state error", "[apps][compare][events]") {
  // The pendulum from horizontal passes the vertical once in 1 s (at 0.592 s, docs/events.md).
  const auto dir = freshOutputDir("compare_event");
  const AppRun run = runApp(kCompareApp, "--links 1 --tilt 0 --horizon 1 --integrators rk4,semi_implicit,cvode_bdf "
                                  "--dts 0.01,0.005 --rtols 1e-6,1e-8 --repeats 1 --event 'x<0' --out '" +
                                      dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("event time error"));
  const auto doc = readJson(dir / "compare.json");
  CHECK(doc["event"] == "x<0");
  REQUIRE(doc["rows"].size() == 6);
  std::map<std::string, std::vector<double>> errors;
  for (const auto& row : doc["rows"]) {
    INFO(row.dump());
    CHECK(row["events_fired"] == 1);
    REQUIRE(row["event_time_error"].is_number());
    errors[row["integrator"].get<std::string>()].push_back(row["event_time_error"].get<double>());
  }
  // Halving dt: RK4's located time (a position event) improves about 16x, semi-implicit Euler's 2x.
  CHECK(errors["rk4"][0] / errors["rk4"][1] > 8.0);
  CHECK(errors["semi_implicit"][0] / errors["semi_implicit"][1] == Approx(2.0).margin(0.5));
  CHECK(errors["cvode_bdf"][1] < errors["cvode_bdf"][0]);
  CHECK(errors["cvode_bdf"][0] < 1e-3);

  for (const char* bad : {"--model circle --event 'x<0'", "--event 'tension[3]<0'", "--event 'w<0'"}) {
    const AppRun refused = runApp(kCompareApp, std::string(bad) + " --horizon 0.1 --out '" + dir.string() + "'");
    INFO(bad << ": " << refused.output);
    CHECK(refused.exit_code > 0);
    CHECK_THAT(refused.output, Contains("--event"));
  }
}

TEST_CASE("compare app: --rho-inf and --hht-alpha set the damping of generalized_alpha and hht, recorded off the "
          "defaults",
          "[apps][compare][generalized_alpha]") {
  const auto dir = freshOutputDir("compare_galpha");
  auto rowsOf = [&](const std::string& flags, const std::string& name) {
    const auto out = dir / name;
    const AppRun run = runApp(kCompareApp, "--horizon 0.2 --integrators generalized_alpha,hht --dts 0.01 --repeats 1 " +
                                        flags + " --out '" + out.string() + "'");
    INFO(flags << "\n" << run.output);
    REQUIRE(run.exit_code == 0);
    return readJson(out / "compare.json");
  };
  const auto plain = rowsOf("", "plain");
  const auto undamped = rowsOf("--rho-inf 1 --hht-alpha 0", "undamped");
  const auto damped = rowsOf("--rho-inf 0.3 --hht-alpha -0.3", "damped");
  CHECK_FALSE(plain.contains("generalized_alpha"));  // at the defaults, the file as before the flags
  CHECK(rowsOf("--rho-inf 0.8 --hht-alpha -0.1", "defaults_given") == plain);
  CHECK(undamped["generalized_alpha"] == nlohmann::json{{"hht_alpha", 0.0}, {"rho_inf", 1.0}});
  CHECK(damped["generalized_alpha"] == nlohmann::json{{"hht_alpha", -0.3}, {"rho_inf", 0.3}});
  const auto value = [](const nlohmann::json& doc, const std::string& integrator, const std::string& key) {
    for (const auto& row : doc["rows"]) {
      if (row["integrator"] == integrator) return row[key].get<double>();
    }
    FAIL("no row of " << integrator);
    return 0.0;
  };
  // ρ∞ = 1 and α = 0 are both the trapezoidal rule in (q, q̇): the same error at T up to the
  // Newton tolerance (1e-12 in position units).
  CHECK(value(undamped, "generalized_alpha", "error_at_T") ==
        Approx(value(undamped, "hht", "error_at_T")).epsilon(1e-8));
  for (const char* integrator : {"generalized_alpha", "hht"}) {
    INFO(integrator);
    // Numerical damping takes energy the undamped rule keeps (measured over 0.2 s: 4.5e-4 J at
    // ρ∞ = 1, α = 0; 1.1e-3 and 7.4e-4 J at ρ∞ = 0.3, α = −0.3).
    CHECK(value(damped, integrator, "energy_drift") > 1.3 * value(undamped, integrator, "energy_drift"));
  }

  const std::string out = " --out '" + (dir / "bad").string() + "'";
  for (const auto& [flags, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"--rho-inf 1.5", "--rho-inf"},
           {"--hht-alpha -0.4", "--hht-alpha"},
           {"--integrators rk4 --rho-inf 0.5", "applies to generalized_alpha only"},
           {"--integrators generalized_alpha --hht-alpha -0.2", "applies to hht only"}}) {
    const AppRun run = runApp(kCompareApp, flags + " --horizon 0.1" + out);
    INFO(flags << " -> " << run.exit_code << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Contains(fragment));
  }
}

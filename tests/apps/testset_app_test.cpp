// kktdae-testset: one scored run per problem, deterministic files, usage errors, and a small
// ladder whose failed rungs are rows without NaN.
#include <catch2/catch.hpp>

#include <cmath>
#include <algorithm>
#include <set>
#include <sstream>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<double> numbers(const nlohmann::json& array) {
  std::vector<double> values;
  for (const auto& x : array) values.push_back(x.get<double>());
  return values;
}

/// scd recomputed from the files' own end state and reference (first k components).
double recomputedScd(const nlohmann::json& m, int k) {
  const std::vector<double> q = numbers(m["end_state"]["q"]), ref = numbers(m["reference"]["q"]);
  double worst = 0.0;
  for (int i = 0; i < k; ++i) worst = std::max(worst, std::abs(q[i] - ref[i]) / std::abs(ref[i]));
  return -std::log10(worst);
}

std::vector<std::vector<std::string>> csvRows(const std::string& text) {
  // Fields may be quoted (formulations and messages contain commas).
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"') {
        if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
          fields.back() += '"';
          ++i;
        } else {
          quoted = !quoted;
        }
      } else if (c == ',' && !quoted) {
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

TEST_CASE("testset app: an andrews run writes the end state in both sign conventions, its scd and counters",
          "[apps][testset]") {
  const auto dir = freshOutputDir("testset_andrews");
  const AppRun run = runApp(kTestsetApp, "--problem andrews --integrator cvode_bdf --rtol 1e-7 --atol 1e-7 --out '" +
                                      dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto m = readJson(dir / "metrics.json");
  CHECK(m["status"] == "ok");
  CHECK(m["reached_end"] == true);
  CHECK(m["t_end"].get<double>() == 0.03);
  // The Test Set's λ is minus ours for Andrews (it writes M q'' = f - G^T lambda).
  const std::vector<double> lambda = numbers(m["end_state"]["lambda"]),
                            lambda_ts = numbers(m["end_state"]["lambda_test_set"]);
  REQUIRE(lambda.size() == 6);
  for (std::size_t i = 0; i < lambda.size(); ++i) CHECK(lambda_ts[i] == -lambda[i]);
  CHECK(m["reference"]["lambda_test_set"][0].get<double>() == Approx(199.1753333731910).epsilon(1e-15));
  CHECK(m["scd"].get<double>() == Approx(recomputedScd(m, 7)).epsilon(1e-12));
  CHECK(m["scd"].get<double>() > 0.0);
  CHECK(m["mescd"].get<double>() >= m["scd"].get<double>());  // the floor only ever lowers an error
  CHECK(m["counters"]["steps"].get<long>() > 0);
  CHECK(m["counters"]["rhs_evaluations_are"] == "f(t, y) of the index-1 ODE");
  CHECK(m["counters"]["jacobian_evaluations"].get<long>() > 0);
  CHECK_FALSE(m.contains("wall_seconds"));
  CHECK(readJson(dir / "timing.json").contains("wall_seconds"));
}

TEST_CASE("testset app: a fixed-step car axis run gives the same metrics bytes twice, lambda in one sign",
          "[apps][testset]") {
  const auto a = freshOutputDir("testset_caraxis_a"), b = freshOutputDir("testset_caraxis_b");
  const std::string flags = "--problem caraxis --integrator rk4 --dt 0.001 --stabilization projection --out ";
  const AppRun first = runApp(kTestsetApp, flags + "'" + a.string() + "'");
  const AppRun second = runApp(kTestsetApp, flags + "'" + b.string() + "'");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(readFile(a / "metrics.json") == readFile(b / "metrics.json"));
  const auto m = readJson(a / "metrics.json");
  CHECK(m["formulation"] == "index-1 ODE (KKT q̈) + projection");
  CHECK(m["end_state"]["lambda"] == m["end_state"]["lambda_test_set"]);  // the car axis keeps its sign
  CHECK(m["scd"].get<double>() == Approx(recomputedScd(m, 4)).epsilon(1e-12));
  CHECK(m["counters"]["rhs_evaluations_are"] == "KKT-solve stages");
  CHECK(m["counters"]["steps"] == 3000);
}

TEST_CASE("testset app: flags that cannot be right are usage errors naming the flag", "[apps][testset]") {
  const auto dir = freshOutputDir("testset_usage");
  const std::string out = " --out '" + dir.string() + "'";
  const std::pair<std::string, std::string> cases[] = {
      {"--problem pendulum", "--problem"},
      {"--integrator ida_ggl --dt 0.001", "--dt"},
      {"--integrator rk4 --dt 0.007", "does not divide"},
      {"--integrator rk4 --dt 1e-9", "--max-steps"},
      {"--integrator cvode_bdf --stabilization projection", "--stabilization"},
      {"--ladder --rtol 1e-6", "--rtol"},
      {"--integrator rk4 --stabilization baumgarte --alpha 10", "--beta"},
      {"--rtol nan", "--rtol"},
  };
  for (const auto& [arguments, fragment] : cases) {
    const AppRun run = runApp(kTestsetApp, arguments + out);
    INFO(arguments << "\n" << run.output);
    CHECK(run.exit_code != 0);
    CHECK_FALSE(run.crashed());
    CHECK_THAT(run.output, Contains(fragment));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "metrics.json"));
}

TEST_CASE("testset app: a capped car-axis ladder has a row per rung, failed ones with status and no nan",
          "[apps][testset]") {
  const auto dir = freshOutputDir("testset_ladder");
  // 400 steps: the fixed-step rung of 300 runs, the adaptive solvers fail at their tight rungs
  // (too much work), which must show as failed rows.
  const AppRun run = runApp(kTestsetApp, "--problem caraxis --ladder --max-steps 400 --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string csv = readFile(dir / "ladder.csv");
  const auto rows = csvRows(csv);
  for (const auto& row : rows) {
    for (const std::string& field : row) {
      CHECK(field != "nan");
      CHECK(field != "inf");
      CHECK(field != "-inf");
    }
  }
  REQUIRE(rows.size() > 1);
  const std::vector<std::string>& header = rows[0];
  auto column = [&](const std::string& name) {
    const auto found = std::find(header.begin(), header.end(), name);
    REQUIRE(found != header.end());
    return static_cast<std::size_t>(found - header.begin());
  };
  const std::size_t integrator = column("integrator"), status = column("status"), scd = column("scd"),
                    message = column("message"), formulation = column("formulation");
  std::set<std::string> seen;
  int failed = 0, ok = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    INFO(csv);
    REQUIRE(rows[r].size() == header.size());
    seen.insert(rows[r][integrator]);
    CHECK_FALSE(rows[r][formulation].empty());
    if (rows[r][status] == "ok") {
      ++ok;
      CHECK_FALSE(rows[r][scd].empty());
    } else {
      ++failed;
      CHECK(rows[r][scd].empty());
      CHECK_FALSE(rows[r][message].empty());
    }
  }
  for (const char* name : {"euler", "semi_implicit", "rk4", "cvode_bdf", "cvode_adams", "ida_index1", "ida_ggl"}) {
    CHECK(seen.count(name) == 1);
  }
  CHECK(ok > 0);
  CHECK(failed > 0);
  // 4 adaptive integrators × 9 tolerances + 3 fixed-step ones × 1 rung (300 steps ≤ 400).
  CHECK(rows.size() - 1 >= 39);
  const auto doc = readJson(dir / "ladder.json");
  CHECK(doc["rows"].size() == rows.size() - 1);
  CHECK(doc["published"].size() == 6);
  CHECK(readFile(dir / "ladder.csv").find("wall") == std::string::npos);
  CHECK(std::filesystem::exists(dir / "timing_ladder.csv"));
  if (gnuplotOnPath()) {
    CHECK(std::filesystem::exists(dir / "work_precision.png"));
    CHECK(std::filesystem::exists(dir / "timing_work_precision.png"));
  }
  // Everything but the timing* files is the same bytes on a second run.
  const auto again = freshOutputDir("testset_ladder_again");
  const AppRun second = runApp(kTestsetApp, "--problem caraxis --ladder --max-steps 400 --out '" + again.string() + "'");
  REQUIRE(second.exit_code == 0);
  for (const char* file : {"ladder.csv", "ladder.json", "work_precision.dat", "published.dat", "work_precision.gp",
                           "work_precision.png"}) {
    INFO(file);
    if (std::string(file) == "work_precision.png" && !gnuplotOnPath()) continue;
    CHECK(readFile(dir / file) == readFile(again / file));
  }
}

TEST_CASE("testset app: --rho-inf and --hht-alpha reach the run and the ladder, and are recorded off their defaults",
          "[apps][testset][generalized_alpha]") {
  const auto dir = freshOutputDir("testset_galpha");
  auto endQ = [&](const std::string& flags, const std::string& name) {
    const auto out = dir / name;
    const AppRun run = runApp(kTestsetApp, "--problem caraxis " + flags + " --out '" + out.string() + "'");
    INFO(flags << "\n" << run.output);
    REQUIRE(run.exit_code == 0);
    const auto m = readJson(out / "metrics.json");
    return std::make_pair(numbers(m["end_state"]["q"]), m);
  };
  const auto [plain_q, plain] = endQ("--integrator generalized_alpha", "plain");
  const auto [undamped_q, undamped] = endQ("--integrator generalized_alpha --rho-inf 1", "rho1");
  const auto [trapezoidal_q, trapezoidal] = endQ("--integrator hht --hht-alpha 0", "alpha0");
  CHECK_FALSE(plain.contains("generalized_alpha"));  // at the defaults, the file as before the flags
  CHECK(undamped["generalized_alpha"] == nlohmann::json{{"rho_inf", 1.0}});
  CHECK(trapezoidal["generalized_alpha"] == nlohmann::json{{"hht_alpha", 0.0}});
  // ρ∞ = 1 (α_m = α_f = ½) and α = 0 (α_m = α_f = 0) are both the trapezoidal rule in (q, q̇):
  // the same end state up to the Newton tolerance (1e-12 in position units), while the default
  // ρ∞ = 0.8 damps and ends measurably elsewhere.
  REQUIRE(plain_q.size() == undamped_q.size());
  double same = 0.0, moved = 0.0;
  for (std::size_t i = 0; i < plain_q.size(); ++i) {
    same = std::max(same, std::abs(undamped_q[i] - trapezoidal_q[i]));
    moved = std::max(moved, std::abs(undamped_q[i] - plain_q[i]));
  }
  CHECK(same < 1e-10);
  CHECK(moved > 1e-6);

  // The ladder hands the same options to its rungs: its 300-step generalized_alpha row is the
  // single run at dt = 3 s / 300.
  const auto ladder_dir = dir / "ladder";
  const AppRun ladder = runApp(kTestsetApp, "--problem caraxis --ladder --max-steps 400 --rho-inf 0.5 --hht-alpha -0.2 "
                                     "--out '" + ladder_dir.string() + "'");
  INFO(ladder.output);
  REQUIRE(ladder.exit_code == 0);
  const auto doc = readJson(ladder_dir / "ladder.json");
  CHECK(doc["generalized_alpha"] == nlohmann::json{{"hht_alpha", -0.2}, {"rho_inf", 0.5}});
  const auto [single_q, single] = endQ("--integrator generalized_alpha --dt 0.01 --rho-inf 0.5", "single");
  int matched = 0;
  for (const auto& row : doc["rows"]) {
    if (row["integrator"] != "generalized_alpha") continue;
    ++matched;
    CHECK(numbers(row["end_q"]) == single_q);
  }
  CHECK(matched == 1);
}

TEST_CASE("testset app: --rho-inf and --hht-alpha out of range or for another integrator are usage errors",
          "[apps][testset][generalized_alpha]") {
  const auto dir = freshOutputDir("testset_galpha_usage");
  const std::string out = " --out '" + dir.string() + "'";
  const std::pair<std::string, std::string> cases[] = {
      {"--integrator generalized_alpha --rho-inf 1.5", "--rho-inf"},
      {"--integrator generalized_alpha --rho-inf -0.1", "--rho-inf"},
      {"--integrator hht --hht-alpha -0.5", "--hht-alpha"},
      {"--integrator hht --hht-alpha 0.1", "--hht-alpha"},
      {"--integrator ida_index1 --rho-inf 0.5", "applies to generalized_alpha only"},
      {"--integrator generalized_alpha --hht-alpha -0.2", "applies to hht only"},
  };
  for (const auto& [arguments, fragment] : cases) {
    const AppRun run = runApp(kTestsetApp, arguments + out);
    INFO(arguments << "\n" << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Contains(fragment));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "metrics.json"));
}

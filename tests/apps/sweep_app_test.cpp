// kktdae-sweep as a user runs it: sweep files refused with the key named, failed runs as rows,
// the same bytes on 1 and 2 threads and on 1, 2 and 3 MPI ranks, and a killed job resumed to
// the bytes of an uninterrupted one.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {

const std::string kSmall = std::string(KKTDAE_SOURCE_DIR) + "/apps/sweep/examples/small.json";

std::string shellQuoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

/// Writes a sweep file for one test and returns its path.
std::filesystem::path writeSweepFile(const std::string& name, const std::string& text) {
  const auto dir = freshOutputDir("sweep_files_" + name);
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".json");
  std::ofstream(path) << text;
  return path;
}

struct SweepRun {
  std::filesystem::path dir;
  AppRun run;
};

/// Writes `text` as a sweep file and runs the app on it with `flags`, into a fresh directory.
SweepRun runSweepText(const std::string& name, const std::string& text, const std::string& flags = "") {
  SweepRun result;
  result.dir = freshOutputDir("sweep_" + name);
  result.run = runApp(kSweepApp, shellQuoted(writeSweepFile(name, text)) + " " + flags + " --out " + shellQuoted(result.dir));
  return result;
}

/// The small example on `threads` threads, into a fresh directory.
std::filesystem::path threadedRun(const std::string& name, const std::string& threads) {
  const auto dir = freshOutputDir(name);
  const AppRun run = runApp(kSweepApp, shellQuoted(kSmall) + " --threads " + threads + " --out " + shellQuoted(dir));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  return dir;
}

void requireSameFiles(const std::filesystem::path& expected, const std::filesystem::path& actual) {
  for (const char* file : {"sweep.csv", "sweep.json"}) {
    INFO(file << ": " << expected.string() << " vs " << actual.string());
    const std::string bytes = readFile(expected / file);
    REQUIRE(!bytes.empty());
    CHECK(readFile(actual / file) == bytes);
  }
}

/// A CSV without quoted fields as header name → column of fields.
std::map<std::string, std::vector<std::string>> csvColumns(const std::string& csv) {
  std::vector<std::vector<std::string>> lines;
  std::stringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    lines.emplace_back(1);
    for (char c : line) {
      if (c == ',') {
        lines.back().emplace_back();
      } else {
        lines.back().back() += c;
      }
    }
  }
  std::map<std::string, std::vector<std::string>> columns;
  for (std::size_t row = 1; row < lines.size(); ++row) {
    for (std::size_t k = 0; k < lines[0].size() && k < lines[row].size(); ++k) columns[lines[0][k]].push_back(lines[row][k]);
  }
  return columns;
}

long countLines(const std::string& text) { return static_cast<long>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("sweep app: 1 and 2 threads write byte-identical sweep.csv and sweep.json, and failed runs are rows",
          "[apps][sweep]") {
  const auto serial = threadedRun("sweep_threads1", "1");
  const auto parallel = threadedRun("sweep_threads2", "2");
  requireSameFiles(serial, parallel);

  const nlohmann::json document = readJson(serial / "sweep.json");
  REQUIRE(document["count"] == 16);
  REQUIRE(document["runs"].size() == 16);
  long failed = 0;
  for (const nlohmann::json& run : document["runs"]) {
    CHECK(run["index"].is_number_unsigned());
    if (run["status"] != "success") {
      ++failed;
      // Semi-implicit Euler at omega = 400 and dt = 0.005 (dt omega = 2) blows up: the row says where.
      CHECK(run["params"]["integrator"] == "semi_implicit");
      CHECK(run["params"]["omega"] == 400.0);
      CHECK_THAT(run["message"].get<std::string>(), Contains("at step"));
      CHECK(run["failed_step"].get<long>() > 0);
    }
  }
  CHECK(failed == 4);
  CHECK(document["status_counts"]["success"] == 16 - failed);
  const std::string csv = readFile(serial / "sweep.csv");
  CHECK(countLines(csv) == 17);
  CHECK(csv.find("nan") == std::string::npos);
  CHECK(csv.rfind("index,integrator,omega,seed,status,message,", 0) == 0);
  // Timing apart: one line per run, plus the header.
  CHECK(countLines(readFile(serial / "timing.csv")) == 17);
  CHECK(readJson(serial / "timing.json")["threads_per_rank"] == 1);
}

TEST_CASE("sweep app: a sweep file with an unknown key, a wrong type or an empty axis is refused naming the key",
          "[apps][sweep]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"model": "chain", "axis": {"dt": [0.01]}})", "axis: unknown key"},
      {R"({"model": "chain", "fixed": {"links": "3"}})", "fixed.links: expected an integer"},
      {R"({"model": "chain", "axes": {"dt": []}})", "axes.dt: empty axis"},
      {R"({"model": "circle", "axes": {"links": [2, 3]}})", "axes.links: not a parameter of model 'circle'"},
      {R"({"model": "chain", "axes": {"dt": {"from": 0.01, "to": 0.02}}})", "axes.dt: a range needs exactly one of"},
      {R"({"model": "chain", "axes": {"seed": {"from": 0, "to": 9, "stride": 1}}})", "axes.seed.stride: unknown key"},
      {R"({"model": "chain", "fixed": {"dt": 0}})", "fixed.dt: expected a finite number > 0"},
      {R"({"model": "chain", "fixed": {"steps": 10, "horizon": 1}})", "steps: and \"horizon\" both given"},
      {R"({"model": "chain", "fixed": {"dt": 0.01}, "axes": {"dt": [0.02]}})", "axes.dt: also in \"fixed\""},
      {R"({"model": "chain", "axes": {"integrator": ["rk4", "rk5"]}})", "axes.integrator[1]: 'rk5' is not one of"},
      {R"({"model": "chain", "runs": []})", "runs: empty list"},
      {R"({"model": "pendulum"})", "model: 'pendulum' is not one of"},
      // Hostile input: the last of two equal keys won silently (2-link chains for a 3-link file).
      {R"({"model": "chain", "fixed": {"links": 3}, "fixed": {"steps": 50}})", "fixed: given twice in one object"},
      {R"({"model": "chain", "fixed": {"dt": 1e999}})", "fixed.dt: not valid JSON: number overflow"},
      {R"({"model": "chain", "runs": [{"dt": 0.01}, {"dt": 0.01, "dt": 0.02}]})", "runs[1].dt: given twice"},
      // A stability row the library would refuse (once: after every run, with nlohmann's type error).
      {R"({"model": "circle", "measure": "stability", "fixed": {"x0": 1.01},
           "axes": {"integrator": ["rk4", "cvode_bdf"]}})", "axes.integrator[1]: 'cvode_bdf' chooses its own steps"},
      {R"({"model": "chain", "measure": "stability"})", "stretch: 0 (run with {})"},
      {R"({"model": "circle", "measure": "stability", "axes": {"x0": [1.01, 1]}})", "x0: 1 (run with {\"x0\":1.0})"},
      {R"({"model": "four_bar", "measure": "stability"})", "measure: 'stability' needs a start off the manifold"},
      {R"({"model": "chain", "fixed": {"dt": 1e-6, "horizon": 1e4}})", "horizon: horizon / dt = 1e+10 steps"},
      {R"({"model": "circle", "measure": "stability", "fixed": {"x0": 1.01, "horizon": 1e300}})", "horizon: horizon / dt"},
      {R"({"model": "chain", "fixed": {"links": 1000000000}})", "needs about"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto file = writeSweepFile("bad" + std::to_string(i), cases[i].first);
    const auto dir = freshOutputDir("sweep_bad" + std::to_string(i));
    const AppRun run = runApp(kSweepApp, shellQuoted(file) + " --out " + shellQuoted(dir));
    INFO(cases[i].first << "\n" << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Contains(file.string() + ": ") && Contains(cases[i].second));
    CHECK(!std::filesystem::exists(dir / "sweep.csv"));
  }
}

TEST_CASE("sweep app: a value nested 10^5 levels deep is refused naming the file and key, not a crash",
          "[apps][sweep]") {
  // nlohmann parses it iteratively, but dump() (the error message's) recursed and overflowed the stack.
  const int depth = 100000;
  const auto file = writeSweepFile("nested", R"({"model": "chain", "fixed": {"links": )" + std::string(depth, '[') +
                                                 std::string(depth, ']') + "}}");
  const auto dir = freshOutputDir("sweep_nested");
  const AppRun run = runApp(kSweepApp, shellQuoted(file) + " --out " + shellQuoted(dir));
  INFO(run.output.substr(0, 2000));
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Contains(file.string() + ": fixed.links[0]") && Contains("nested deeper than 16 levels"));
}

TEST_CASE("sweep app: usage errors exit 2 whatever CLI11's code for them", "[apps][sweep]") {
  const auto dir = freshOutputDir("sweep_usage");
  for (const std::string& flags : {std::string("--bogus"), std::string("--threads -1"), std::string(""),
                                   shellQuoted(kSmall) + " --threads 2 --threads 3"}) {
    const AppRun run = runApp(kSweepApp, flags + " --out " + shellQuoted(dir));
    INFO(flags << "\n" << run.output);
    CHECK(run.exit_code == 2);
  }
  CHECK(runApp(kSweepApp, "--help").exit_code == 0);
}

TEST_CASE("sweep app: options the library refuses for one run make that run an 'invalid' row, and the sweep goes on",
          "[apps][sweep]") {
  // The circle has no sparse J: forcing the sparse path is refused by the library for that run only.
  const auto [dir, run] = runSweepText("invalid_row", R"({"model": "circle", "fixed": {"steps": 50},
      "runs": [{"path": "dense"}, {"path": "sparse"}, {"path": "auto"}]})");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json runs = readJson(dir / "sweep.json")["runs"];
  REQUIRE(runs.size() == 3);
  CHECK(runs[0]["status"] == "success");
  CHECK(runs[1]["status"] == "invalid");
  CHECK_THAT(runs[1]["message"].get<std::string>(), Contains("sparse"));
  CHECK(runs[1]["steps"].is_null());
  CHECK(runs[2]["status"] == "success");
  // The refused run's numbers are empty fields, never nan.
  const std::string csv = readFile(dir / "sweep.csv");
  CHECK(csv.find("nan") == std::string::npos);
  CHECK_THAT(run.output, Contains("1 of 3 runs did not succeed"));
}

TEST_CASE("sweep app: ranges expand as documented (inclusive integer steps, linear and log counts)", "[apps][sweep]") {
  const auto [dir, run] = runSweepText("ranges", R"({"model": "circle", "measure": "stability",
      "fixed": {"x0": 1.01, "min_steps": 10, "horizon": 0.05},
      "axes": {"dt": {"from": 0.001, "to": 0.03, "count": 3, "spacing": "log"},
               "omega": {"from": 10, "to": 30, "step": 10}}})");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json runs = readJson(dir / "sweep.json")["runs"];
  REQUIRE(runs.size() == 9);
  // The first axis is the outer loop; the end points are the given values exactly.
  CHECK(runs[0]["params"]["dt"] == 0.001);
  CHECK(runs[0]["params"]["omega"] == 10.0);
  CHECK(runs[1]["params"]["omega"] == 20.0);
  CHECK(runs[2]["params"]["omega"] == 30.0);
  CHECK(runs[8]["params"]["dt"] == 0.03);
  CHECK(runs[3]["params"]["dt"].get<double>() == Approx(std::sqrt(0.001 * 0.03)).epsilon(1e-14));
  for (const nlohmann::json& cell : runs) {
    CHECK(cell["e0"].get<double>() == Approx(0.0201).epsilon(1e-12));  // the circle's φ = |q|² − L² at x0 = 1.01 L, L = 1 m
  }
}

TEST_CASE("sweep app: errors against a reference fall as RK4's fourth order predicts", "[apps][sweep]") {
  const auto [dir, run] = runSweepText("reference", R"({"model": "chain", "fixed": {"links": 2, "tilt": 0.1, "horizon": 1},
      "axes": {"integrator": ["rk4"], "dt": [0.02, 0.01, 0.005]},
      "reference": {"integrator": "ida_ggl", "dt": 0.01, "rtol": 1e-12, "atol": 1e-14}})", "--threads 2");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json runs = readJson(dir / "sweep.json")["runs"];
  REQUIRE(runs.size() == 3);
  for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
    REQUIRE(runs[i]["error"].is_number());
    const double ratio = runs[i]["error"].get<double>() / runs[i + 1]["error"].get<double>();
    INFO("dt " << runs[i]["params"]["dt"] << ": error ratio per halving " << ratio);
    CHECK(ratio > 12.0);  // 2⁴ = 16 in the asymptotic range
    CHECK(ratio < 20.0);
  }
}

TEST_CASE("sweep app: the chapter's seeds as a sweep file give kktdae-constraints --seeds's metrics digit for digit",
          "[apps][sweep]") {
  const auto seeds_dir = freshOutputDir("sweep_vs_constraints_seeds");
  const AppRun seeds = runApp(KKTDAE_CONSTRAINTS_APP, "--seeds 0-3 --steps 300 --no-rerun --out " + shellQuoted(seeds_dir));
  INFO(seeds.output);
  REQUIRE(seeds.exit_code == 0);
  // chapter-seeds.json with four seeds and 300 steps: seed outer, stabilization inner.
  const auto [dir, run] = runSweepText("vs_constraints", R"({"model": "chain",
      "fixed": {"links": 2, "integrator": "semi_implicit", "dt": 0.005, "steps": 300, "omega": 20, "zeta": 1},
      "axes": {"seed": {"from": 0, "to": 3, "step": 1}, "stabilization": ["none", "baumgarte"]}})");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  auto chapter = csvColumns(readFile(seeds_dir / "seeds.csv"));
  auto swept = csvColumns(readFile(dir / "sweep.csv"));
  REQUIRE(chapter["seed"].size() == 4);
  REQUIRE(swept["seed"].size() == 8);
  for (std::size_t s = 0; s < 4; ++s) {
    for (std::size_t mode = 0; mode < 2; ++mode) {
      const std::size_t row = 2 * s + mode;
      const std::string prefix = mode == 0 ? "none_" : "baumgarte_";
      INFO("seed " << s << " " << prefix);
      CHECK(swept["seed"][row] == chapter["seed"][s]);
      CHECK(swept["stabilization"][row] + "_" == prefix);
      CHECK(swept["max_link_error"][row] == chapter[prefix + "max_violation"][s]);
      CHECK(swept["final_link_error"][row] == chapter[prefix + "final_violation"][s]);
      CHECK(swept["energy_rel_max"][row] == chapter[prefix + "energy_rel_max"][s]);
      CHECK(swept["steps"][row] == chapter[prefix + "steps_completed"][s]);
    }
  }
}

TEST_CASE("sweep app: errdyn's stability map as a sweep file gives kktdae-errdyn's cells", "[apps][sweep]") {
  const auto errdyn_dir = freshOutputDir("errdyn_for_sweep_test");
  const AppRun errdyn = runApp(KKTDAE_ERRDYN_APP, "--map-points 4 --no-limits --out " + shellQuoted(errdyn_dir));
  INFO(errdyn.output);
  REQUIRE(errdyn.exit_code == 0);
  // errdyn-map-circle.json on errdyn's grid with 4 points per axis.
  const auto [dir, run] = runSweepText("vs_errdyn", R"({"model": "circle", "measure": "stability",
      "fixed": {"x0": 1.01, "integrator": "semi_implicit", "zeta": 1, "horizon": 2, "min_steps": 400},
      "axes": {"dt": {"from": 0.001, "to": 0.03, "count": 4, "spacing": "log"},
               "omega": {"from": 5, "to": 3000, "count": 4, "spacing": "log"}}})");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  auto map = csvColumns(readFile(errdyn_dir / "map_semi_implicit_circle.csv"));
  auto swept = csvColumns(readFile(dir / "sweep.csv"));
  REQUIRE(map["dt"].size() == 16);
  CHECK(swept["dt"] == map["dt"]);
  CHECK(swept["omega"] == map["omega"]);
  CHECK(swept["behaviour"] == map["behaviour"]);
}

TEST_CASE("sweep app: a killed threaded job keeps its journal, refuses a fresh start there, and --resume finishes "
          "it to the uninterrupted bytes",
          "[apps][sweep]") {
  const auto reference = threadedRun("sweep_uninterrupted", "2");
  const auto dir = freshOutputDir("sweep_killed_threads");
  const AppRun killed = runShell("KKTDAE_SWEEP_TEST_KILL=0:5 '" + kSweepApp + "' " + shellQuoted(kSmall) +
                                 " --threads 1 --out " + shellQuoted(dir));
  INFO(killed.output);
  REQUIRE(killed.exit_code == 128 + 9);  // SIGKILL, as a lost node or the OOM killer
  CHECK(!std::filesystem::exists(dir / "sweep.csv"));
  CHECK(countLines(readFile(dir / "journal-a1-r0.jsonl")) == 5);

  const AppRun fresh = runApp(kSweepApp, shellQuoted(kSmall) + " --out " + shellQuoted(dir));
  INFO(fresh.output);
  CHECK(fresh.exit_code == 2);
  CHECK_THAT(fresh.output, Contains("5 of 16 runs finished"));
  CHECK_THAT(fresh.output, Contains("--resume " + dir.string()));

  const AppRun resumed = runApp(kSweepApp, shellQuoted(kSmall) + " --threads 2 --resume " + shellQuoted(dir));
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("11 to run, 5 from journals"));
  requireSameFiles(reference, dir);
  CHECK(countLines(readFile(dir / "journal-a2-r0.jsonl")) == 11);
}

TEST_CASE("sweep app: a finished sweep's manifest lists its files, and SIGINT and SIGTERM exit 130 and 143 with an "
          "'interrupted' manifest and the journals to resume from",
          "[apps][sweep][signals]") {
  const auto complete = threadedRun("sweep_manifest", "1");
  const auto manifest = readJson(complete / "manifest.json");
  CHECK(manifest["app"] == "kktdae-sweep");
  CHECK(manifest["status"] == "complete");
  std::vector<std::string> listed;
  for (const auto& file : manifest["files"]) listed.push_back(file["name"].get<std::string>());
  CHECK(listed == std::vector<std::string>{"sweep.csv", "sweep.json", "timing.csv", "timing.json"});

  for (const auto& [signal, code] : {std::pair<std::string, int>{"INT", 130}, {"TERM", 143}}) {
    const auto dir = freshOutputDir("sweep_signal_" + signal);
    const AppRun stopped = runShell("KKTDAE_SWEEP_TEST_KILL=0:5:" + signal + " '" + kSweepApp + "' " +
                                    shellQuoted(kSmall) + " --threads 1 --out " + shellQuoted(dir));
    INFO(signal << ": " << stopped.output);
    CHECK(stopped.exit_code == code);
    CHECK(!std::filesystem::exists(dir / "sweep.csv"));
    const auto interrupted = readJson(dir / "manifest.json");
    CHECK(interrupted["status"] == "interrupted");
    CHECK_THAT(interrupted["message"].get<std::string>(), Contains("--resume " + dir.string()));
    CHECK(interrupted["files"].empty());
    CHECK(countLines(readFile(dir / "journal-a1-r0.jsonl")) >= 5);
    const AppRun resumed = runApp(kSweepApp, shellQuoted(kSmall) + " --resume " + shellQuoted(dir));
    INFO(resumed.output);
    CHECK(resumed.exit_code == 0);
    requireSameFiles(complete, dir);
    CHECK(readJson(dir / "manifest.json")["status"] == "complete");
  }
}

TEST_CASE("sweep app: two sweeps started into one directory at once: one runs, the other is refused",
          "[apps][sweep][lock]") {
  // Whichever starts second finds the directory locked (or, if the first has ended, its
  // journals): exit 2 either way, and the directory holds the first sweep whole.
  const auto reference = threadedRun("sweep_lock_reference", "1");
  const auto dir = freshOutputDir("sweep_two_at_once");
  const std::string one = "'" + kSweepApp + "' " + shellQuoted(kSmall) + " --threads 1 --out " + shellQuoted(dir);
  const AppRun both = runShell(one + " > /dev/null 2>&1 & a=$!; " + one + " > /dev/null 2>&1; b=$?; wait $a; "
                               "echo codes $? $b");
  INFO(both.output);
  const bool first_won = both.output.find("codes 0 2") != std::string::npos;
  CHECK((first_won || both.output.find("codes 2 0") != std::string::npos));
  requireSameFiles(reference, dir);
  CHECK(readJson(dir / "manifest.json")["status"] == "complete");
  CHECK(countLines(readFile(dir / "journal-a1-r0.jsonl")) == 16);
  CHECK(!std::filesystem::exists(dir / "journal-a2-r0.jsonl"));
}

TEST_CASE("sweep app: a stability row without a behaviour (a run the library refused) is written, not a crash",
          "[apps][sweep]") {
  // The file refuses every such run it can foresee; a row from a journal still reaches the writer,
  // which once failed on it after all the runs ("type must be string, but is null") and again on
  // every --resume.
  const std::string text = R"({"model": "circle", "measure": "stability", "fixed": {"x0": 1.01, "horizon": 0.05},
      "axes": {"omega": [10, 20]}})";
  const auto file = writeSweepFile("refused_row", text);
  const auto dir = freshOutputDir("sweep_refused_row");
  const AppRun killed = runShell("KKTDAE_SWEEP_TEST_KILL=0:1 '" + kSweepApp + "' " + shellQuoted(file) +
                                 " --threads 1 --out " + shellQuoted(dir));
  REQUIRE(killed.exit_code == 128 + 9);
  nlohmann::json row = nlohmann::json::parse(readFile(dir / "journal-a1-r0.jsonl"));
  row["results"]["status"] = "invalid";
  row["results"]["message"] = "refused";
  for (const char* column : {"behaviour", "e0", "late_max", "steps"}) row["results"][column] = nullptr;
  std::ofstream(dir / "journal-a1-r0.jsonl") << row.dump() << "\n";
  const AppRun resumed = runApp(kSweepApp, shellQuoted(file) + " --resume " + shellQuoted(dir));
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  const nlohmann::json document = readJson(dir / "sweep.json");
  CHECK(document["status_counts"]["invalid"] == 1);
  CHECK(document["behaviour_counts"].size() == 1);  // the other run's behaviour only
  CHECK(document["runs"][0]["behaviour"].is_null());
  CHECK_THAT(resumed.output, Contains("invalid"));
}

#ifdef KKTDAE_SWEEP_MPIEXEC
namespace {

/// mpirun with what this machine needs: more ranks than cores, and root in containers.
std::string mpirun(int ranks) {
  std::string command = std::string("'") + KKTDAE_SWEEP_MPIEXEC + "' --oversubscribe";
  if (geteuid() == 0) command += " --allow-run-as-root";
  return command + " -np " + std::to_string(ranks) + " -x KKTDAE_SWEEP_TEST_KILL '" + kSweepApp + "' ";
}

}  // namespace

TEST_CASE("sweep app under MPI: -np 1, 2 and 3 write the threaded run's sweep.csv and sweep.json byte for byte",
          "[apps][sweep][mpi]") {
  const auto threaded = threadedRun("sweep_mpi_reference", "2");
  for (int ranks : {1, 2, 3}) {
    const auto dir = freshOutputDir("sweep_mpi_np" + std::to_string(ranks));
    const AppRun run = runShell("KKTDAE_SWEEP_TEST_KILL= " + mpirun(ranks) + shellQuoted(kSmall) + " --out " + shellQuoted(dir));
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("on " + std::to_string(ranks) + " rank"));
    requireSameFiles(threaded, dir);
    // Each rank journaled its share (static round-robin: 16 runs over the ranks).
    long journaled = 0;
    for (int r = 0; r < ranks; ++r) {
      const long lines = countLines(readFile(dir / ("journal-a1-r" + std::to_string(r) + ".jsonl")));
      CHECK(lines == (16 - r + ranks - 1) / ranks);
      journaled += lines;
    }
    CHECK(journaled == 16);
  }
}

TEST_CASE("sweep app under MPI: a rank killed mid-sweep fails the job with the missing count and the resume "
          "command, and --resume on another rank count gives the same bytes",
          "[apps][sweep][mpi]") {
  const auto threaded = threadedRun("sweep_mpi_kill_reference", "1");
  const auto dir = freshOutputDir("sweep_mpi_killed");
  const AppRun killed = runShell("KKTDAE_SWEEP_TEST_KILL=1:3 " + mpirun(2) + shellQuoted(kSmall) + " --out " + shellQuoted(dir));
  INFO(killed.output);
  CHECK(killed.exit_code != 0);
  CHECK(!std::filesystem::exists(dir / "sweep.csv"));
  CHECK(countLines(readFile(dir / "journal-a1-r1.jsonl")) == 3);
  const long done = countLines(readFile(dir / "journal-a1-r0.jsonl")) + 3;
  CHECK_THAT(killed.output, Contains(std::to_string(16 - done) + " of 16 runs are missing"));
  CHECK_THAT(killed.output, Contains("kktdae-sweep " + kSmall + " --resume " + dir.string()));

  const AppRun resumed = runShell("KKTDAE_SWEEP_TEST_KILL= " + mpirun(3) + shellQuoted(kSmall) + " --resume " + shellQuoted(dir));
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains(std::to_string(16 - done) + " to run, " + std::to_string(done) + " from journals"));
  requireSameFiles(threaded, dir);
}
#endif

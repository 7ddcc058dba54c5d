// The run-directory rule (docs/apps.md, "Output directories"): one run per directory (its lock), an
// earlier run's files and a killed run's temporaries go first, the manifest comes last, and
// SIGINT/SIGTERM publish what was recorded, marked "interrupted", with exit 130/143. Signals
// arrive at deterministic points through the apps' test-only hooks (apps/common/interrupt.hpp),
// or, for kktdae-testset's ladder, a second into a run of minutes.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {


void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::set<std::string> filesIn(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

/// Names that look like a writer's temporary: "<name>.XXXXXX".
std::vector<std::string> temporariesIn(const std::filesystem::path& dir) {
  std::vector<std::string> found;
  for (const std::string& name : filesIn(dir)) {
    const std::size_t dot = name.rfind('.');
    if (dot != std::string::npos && name.size() - dot == 7 && name.find('.') < dot) found.push_back(name);
  }
  return found;
}

/// The manifest lists exactly the files in the directory besides itself (and anything the test
/// put there that the app does not own), each with its size on disk but the timing files (wall
/// clocks, whose size varies between identical runs), which are listed without one.
void checkManifestMatches(const std::filesystem::path& dir, const nlohmann::json& manifest,
                          const std::set<std::string>& foreign = {}) {
  std::set<std::string> listed;
  for (const auto& file : manifest["files"]) {
    const std::string name = file["name"].get<std::string>();
    INFO(name);
    listed.insert(name);
    REQUIRE(std::filesystem::exists(dir / name));
    if (name.find("timing") != std::string::npos) {
      CHECK_FALSE(file.contains("bytes"));
    } else {
      CHECK(file["bytes"].get<std::uintmax_t>() == std::filesystem::file_size(dir / name));
    }
  }
  std::set<std::string> present = filesIn(dir);
  present.erase("manifest.json");
  for (const std::string& name : foreign) present.erase(name);
  CHECK(listed == present);
}

/// What every interrupted run leaves: its exit code, no temporary, and a manifest "interrupted"
/// that lists exactly the files present; returns the manifest.
nlohmann::json checkInterrupted(const std::filesystem::path& dir, const AppRun& run, int exit_code) {
  CHECK(run.exit_code == exit_code);
  CHECK(temporariesIn(dir).empty());
  const auto manifest = readJson(dir / "manifest.json");
  CHECK(manifest["status"] == "interrupted");
  checkManifestMatches(dir, manifest);
  return manifest;
}

/// A tmpfs of `size` (mount's syntax, "160k") mounted at a fresh directory for one test and
/// unmounted after it: a full disk at a known point. Mounting needs root; mounted() says whether
/// it worked.
class SmallTmpfs {
 public:
  SmallTmpfs(const std::string& name, const std::string& size) : path_(freshOutputDir(name)) {
    std::filesystem::create_directories(path_);
    mounted_ = std::system(("mount -t tmpfs -o size=" + size + " tmpfs '" + path_.string() + "' 2>/dev/null").c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) std::system(("umount '" + path_.string() + "'").c_str());
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool mounted_ = false;
};

}  // namespace

TEST_CASE("run directory: an earlier run's files and a killed run's temporaries are removed, the manifest is last",
          "[apps][run_directory]") {
  const auto dir = freshOutputDir("run_directory_rule");
  std::filesystem::create_directories(dir);
  // What a full run, a --seeds run and a killed run left behind, and a file that is not ours.
  for (const char* stale : {"recording.csv", "violation.png", "violation.gp", "seeds.csv", "seeds.json",
                            "recording.csv.QHHPRk", "violation.png.0gFSHZ", "manifest.json.a1B2c3"}) {
    writeText(dir / stale, "stale");
  }
  writeText(dir / "manifest.json", "{\"status\": \"complete\"}");
  writeText(dir / "notes.txt", "the user's");
  const AppRun run = runApp(kConstraintsApp, "--seed 0 --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(filesIn(dir) == std::set<std::string>{"metrics.json", "timing.json", "manifest.json", "notes.txt"});
  const auto manifest = readJson(dir / "manifest.json");
  CHECK(manifest["app"] == "kktdae-constraints");
  CHECK(manifest["status"] == "complete");
  checkManifestMatches(dir, manifest, {"notes.txt"});
  CHECK(manifest["files"][0]["name"] == "metrics.json");  // in the order written
  CHECK_THAT(run.output, Contains("files written to"));
}

TEST_CASE("run directory: SIGINT while a plot renders publishes the recording, removes the temporary, exits 130",
          "[apps][run_directory][signals]") {
  if (!gnuplotOnPath()) {
    WARN("gnuplot is not on the PATH: no plot renders, nothing to interrupt");
    return;
  }
  const auto dir = freshOutputDir("signal_during_plot");
  const AppRun run = runShell("KKTDAE_TEST_SIGNAL_AT_PLOT=2 '" + kConstraintsApp + "' --seed 0 --steps 400 --out '" +
                              dir.string() + "'");
  INFO(run.output);
  checkInterrupted(dir, run, 130);
  // The first plot was finished before the signal; the second was being rendered; the third never began.
  CHECK(std::filesystem::exists(dir / "recording.csv"));
  CHECK(std::filesystem::exists(dir / "violation.png"));
  CHECK(!std::filesystem::exists(dir / "energy.png"));
  CHECK(!std::filesystem::exists(dir / "tip_path.png"));
  CHECK_THAT(run.output, Contains("interrupted while rendering"));
}

TEST_CASE("run directory: SIGTERM while a plot renders exits 143", "[apps][run_directory][signals]") {
  if (!gnuplotOnPath()) {
    WARN("gnuplot is not on the PATH: no plot renders, nothing to interrupt");
    return;
  }
  const auto dir = freshOutputDir("sigterm_during_plot");
  const AppRun run = runShell("KKTDAE_TEST_SIGNAL=TERM KKTDAE_TEST_SIGNAL_AT_PLOT=1 '" + kCircleApp + "' --out '" +
                              dir.string() + "'");
  INFO(run.output);
  checkInterrupted(dir, run, 143);
  CHECK(!std::filesystem::exists(dir / "phi.png"));
}

TEST_CASE("run directory: on a full disk a truncated plot is not published and the run fails",
          "[apps][run_directory][full_disk]") {
  if (!gnuplotOnPath()) {
    WARN("gnuplot is not on the PATH: no plot to truncate");
    return;
  }
  struct FullDisk {
    std::string app, flags, size;
    std::string written, refused;  ///< a file that fits, the plot that does not
  };
  // 160 kB hold circle.csv (112 kB) and the JSON files but not phi.png (47 kB) too; 120 kB hold
  // the ladder's tables and data (about 60 kB, 80 kB in tmpfs pages) but neither plot (59, 68 kB).
  const std::vector<FullDisk> cases = {
      {kCircleApp, "", "160k", "circle.csv", "phi.png"},
      {kTestsetApp, "--problem caraxis --ladder --max-steps 400", "120k", "ladder.csv", "timing_work_precision.png"}};
  for (const FullDisk& c : cases) {
    const SmallTmpfs disk("full_disk", c.size);
    if (!disk.mounted()) {
      WARN("cannot mount a small tmpfs here (needs root): the full-disk case is not exercised");
      return;
    }
    const auto dir = disk.path() / "run";
    const AppRun run = runApp(c.app, c.flags + " --out '" + dir.string() + "'");
    INFO(c.app << ": " << run.output);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Contains("is not a whole PNG"));
    CHECK_THAT(run.output, !Contains("plot: "));
    CHECK(std::filesystem::exists(dir / c.written));
    CHECK(!std::filesystem::exists(dir / c.refused));
    CHECK(temporariesIn(dir).empty());
    const auto manifest = readJson(dir / "manifest.json");
    CHECK(manifest["status"] == "failed");
    CHECK_THAT(manifest["message"].get<std::string>(), Contains(".png"));
    checkManifestMatches(dir, manifest);
  }
}

TEST_CASE("run directory: SIGINT at step 1000 stops the run there, keeps what it recorded, exits 130",
          "[apps][run_directory][signals]") {
  // gnuplot is left out (PATH without it) so that only the run itself is interrupted.
  const auto dir = freshOutputDir("signal_at_step");
  const AppRun run = runShell("PATH=/nonexistent KKTDAE_TEST_SIGNAL_AT_STEP=1000 '" + kConstraintsApp +
                              "' --seed 0 --out '" + dir.string() + "'");
  INFO(run.output);
  checkInterrupted(dir, run, 130);
  // The first mode stopped at the next step after the signal; the second never stepped.
  const auto metrics = readJson(dir / "metrics.json");
  const auto& none = metrics["results"]["none"];
  CHECK(none["status"] == "interrupted");
  CHECK(none["steps_completed"].get<long>() >= 1000);
  CHECK(none["steps_completed"].get<long>() <= 1001);
  CHECK(metrics["results"]["baumgarte"]["steps_completed"] == 0);
  // recording.csv holds every step the first mode took, and only those.
  const std::string csv = readFile(dir / "recording.csv");
  CHECK_THAT(csv, Contains("\n1000,5,"));
  CHECK_THAT(run.output, Contains("interrupted before step"));
}

TEST_CASE("run directory: SIGTERM during kktdae-circle's run exits 143 with its files for the states recorded",
          "[apps][run_directory][signals]") {
  const auto dir = freshOutputDir("sigterm_at_step");
  const AppRun run = runShell("PATH=/nonexistent KKTDAE_TEST_SIGNAL=TERM KKTDAE_TEST_SIGNAL_AT_STEP=200 '" + kCircleApp +
                              "' --out '" + dir.string() + "'");
  INFO(run.output);
  checkInterrupted(dir, run, 143);
  const auto metrics = readJson(dir / "metrics.json");
  CHECK(metrics["status"] == "interrupted");
  CHECK(metrics["steps"].get<long>() >= 200);
  CHECK(metrics["steps"].get<long>() <= 201);
}

TEST_CASE("run directory: kktdae-errdyn and kktdae-compare interrupted while plotting exit 130 with a manifest",
          "[apps][run_directory][signals]") {
  if (!gnuplotOnPath()) {
    WARN("gnuplot is not on the PATH: no plot renders, nothing to interrupt");
    return;
  }
  const std::vector<std::pair<std::string, std::string>> runs = {
      {KKTDAE_ERRDYN_APP, "--no-limits --map-points 3 --threads 1"},
      {KKTDAE_COMPARE_APP, "--horizon 0.5 --integrators rk4 --dts 0.01 --repeats 1"}};
  for (const auto& [app, flags] : runs) {
    const auto dir = freshOutputDir("signal_plot_" + std::filesystem::path(app).filename().string());
    const AppRun run = runShell("KKTDAE_TEST_SIGNAL_AT_PLOT=1 '" + app + "' " + flags + " --out '" + dir.string() + "'");
    INFO(app << ": " << run.output);
    const auto manifest = checkInterrupted(dir, run, 130);
    for (const auto& file : manifest["files"]) CHECK_THAT(file["name"].get<std::string>(), !Contains(".png"));
  }
}


TEST_CASE("run directory: SIGINT during kktdae-testset's ladder publishes the rungs finished, exits 130",
          "[apps][run_directory][signals][testset]") {
  // The whole ladder takes minutes; the signal comes a second in, in a rung it stops.
  const auto dir = freshOutputDir("signal_testset_ladder");
  const AppRun run = runShell("'" + kTestsetApp + "' --ladder --out '" + dir.string() +
                              "' & app=$!; sleep 1; kill -INT $app; wait $app");
  INFO(run.output);
  const auto manifest = checkInterrupted(dir, run, 130);
  CHECK(manifest["message"] == "interrupted by a signal");
  const auto ladder = readJson(dir / "ladder.json");
  CHECK(ladder["rows"].size() < 78);  // fewer than the whole ladder's 78 rungs
  CHECK(std::filesystem::exists(dir / "ladder.csv"));
  for (const auto& file : manifest["files"]) CHECK_THAT(file["name"].get<std::string>(), !Contains(".png"));
}

TEST_CASE("run directory: a gnuplot that ignores the forwarded SIGINT is killed after its grace, the app exits 130",
          "[apps][run_directory][signals]") {
  // A gnuplot deadlocked in its own SIGINT handler (seen after a Ctrl-C to the process group):
  // it ignores SIGINT and SIGTERM, here for 30 s. `timeout` kills an app that waits 20 s for it.
  const auto bin = freshOutputDir("deaf_gnuplot_bin");
  std::filesystem::create_directories(bin);
  writeText(bin / "gnuplot", "#!/bin/sh\ntrap '' INT TERM\ni=0\nwhile [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n");
  std::filesystem::permissions(bin / "gnuplot", std::filesystem::perms::owner_all);
  const auto dir = freshOutputDir("deaf_gnuplot");
  const AppRun run = runShell("PATH='" + bin.string() + "':\"$PATH\" KKTDAE_TEST_SIGNAL_AT_PLOT=1 timeout -s KILL 20 '" +
                              kCircleApp + "' --out '" + dir.string() + "'");
  INFO(run.output);
  checkInterrupted(dir, run, 130);
}

TEST_CASE("run directory: a run into a directory another run holds is refused, touching nothing there",
          "[apps][run_directory][lock]") {
  const auto dir = freshOutputDir("locked_directory");
  std::filesystem::create_directories(dir);
  writeText(dir / "metrics.json", "the other run's");
  // The lock a running app holds: flock on the directory itself.
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const AppRun refused = runApp(kConstraintsApp, "--seed 0 --no-rerun --out '" + dir.string() + "'");
  ::close(fd);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("--out") && Contains("is in use"));
  CHECK(filesIn(dir) == std::set<std::string>{"metrics.json"});
  CHECK(readFile(dir / "metrics.json") == "the other run's");
  // Released (the other run ended, or died: the kernel drops the lock either way), the next run goes.
  const AppRun after = runApp(kConstraintsApp, "--seed 0 --no-rerun --out '" + dir.string() + "'");
  INFO(after.output);
  CHECK(after.exit_code == 0);
}

TEST_CASE("run directory: a directory under an output's name is refused, not removed", "[apps][run_directory]") {
  const auto dir = freshOutputDir("directory_named_like_output");
  std::filesystem::create_directories(dir / "metrics.json");
  writeText(dir / "recording.csv", "stale");
  const AppRun run = runApp(kConstraintsApp, "--seed 0 --no-rerun --out '" + dir.string() + "'");
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Contains("metrics.json' is a directory"));
  CHECK(std::filesystem::is_directory(dir / "metrics.json"));
  CHECK(std::filesystem::exists(dir / "recording.csv"));  // refused before anything was removed
}

// kktdae-tutorial and docs/defining-models.md: the app's checks pass, they can fail, and the
// tutorial's code is the app's code.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "apps/app_runner.hpp"

using namespace kktdae::testing;
using Catch::Matchers::Contains;

namespace {
const std::filesystem::path kSourceDir = KKTDAE_SOURCE_DIR;

/// How many times `needle` occurs in `text`.
std::size_t countOf(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

/// How many "CHECK FAILED" lines of `output` name a run whose label contains `what`.
std::size_t failedLines(const std::string& output, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = output.find("CHECK FAILED"); at != std::string::npos; at = output.find("CHECK FAILED", at + 1)) {
    const std::string line = output.substr(at, output.find('\n', at) - at);
    if (line.find(what) != std::string::npos) ++count;
  }
  return count;
}

/// The bodies of the ```cpp (or c++, cxx) fenced blocks of a markdown text, without the fences.
/// Fences are lines that start with ```; a block runs to the next such line.
std::vector<std::string> cppBlocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  std::istringstream lines(markdown);
  std::string line, body;
  bool inside = false, keep = false;
  while (std::getline(lines, line)) {
    if (line.rfind("```", 0) != 0) {
      if (inside) body += line + "\n";
    } else if (!inside) {
      const std::string info = line.substr(3);
      inside = true;
      keep = info == "cpp" || info == "c++" || info == "cxx";
      body.clear();
    } else {
      if (keep) blocks.push_back(body);
      inside = false;
    }
  }
  if (inside) blocks.push_back("<a fence left open at the end of the file>");  // matches no source
  return blocks;
}
}  // namespace

TEST_CASE("tutorial app: both models pass every check in both KKT forms with rk4 and ida_ggl", "[apps][tutorial]") {
  const AppRun run = runApp(kTutorialApp, "");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("all checks passed"));
  CHECK(countOf(run.output, "CHECK FAILED") == 0);
  CHECK_THAT(run.output, Contains("checkModel(spherical_pendulum): 2 states, ok"));
  CHECK_THAT(run.output, Contains("checkModel(bead_on_hoop): 2 states, ok"));
  // 2 forms × 2 integrators; the pendulum watches E and L_y, the bead θ (at θ*) and C.
  CHECK(countOf(run.output, "  ok\n") == 16);
  for (const char* row : {"schur rk4", "block rk4", "schur ida_ggl", "block ida_ggl"}) {
    INFO(row);
    CHECK(countOf(run.output, row) == 4 + 3);  // 4 table rows (the pendulum has 2), 3 brief reports
  }
}

TEST_CASE("tutorial app: a step or tolerance too coarse breaks the invariants and the app exits 1", "[apps][tutorial]") {
  // RK4 at dt 0.05 moves the pendulum's energy by ~1e-3 J against a bound of 2e-6 J.
  const AppRun coarse_step = runApp(kTutorialApp, "--dt 0.05");
  INFO(coarse_step.output);
  CHECK(coarse_step.exit_code == 1);
  CHECK_THAT(coarse_step.output, Contains("CHECK FAILED: spherical_pendulum 60deg,2m/s schur rk4: energy [J]"));
  CHECK_THAT(coarse_step.output, Contains("SOME CHECKS FAILED"));
  // ida_ggl at rtol 1e-6 moves it by ~2.5e-4 J.
  const AppRun loose_tolerance = runApp(kTutorialApp, "--rtol 1e-6");
  INFO(loose_tolerance.output);
  CHECK(loose_tolerance.exit_code == 1);
  CHECK_THAT(loose_tolerance.output, Contains("CHECK FAILED: spherical_pendulum 60deg,2m/s schur ida_ggl: energy [J]"));
  CHECK(failedLines(loose_tolerance.output, " ida_ggl") > 0);
  CHECK(failedLines(loose_tolerance.output, " rk4") == 0);  // the RK4 runs do not depend on --rtol
  CHECK(runApp(kTutorialApp, "--dt 0").exit_code != 0);
}

TEST_CASE("tutorial doc: every cpp block of docs/defining-models.md is verbatim in apps/tutorial", "[apps][tutorial]") {
  const std::string doc = readFile(kSourceDir / "docs" / "defining-models.md");
  REQUIRE(!doc.empty());
  const std::vector<std::string> names = {"spherical_pendulum.hpp", "bead_on_hoop.hpp", "main.cpp"};
  std::vector<std::string> sources;
  for (const std::string& name : names) {
    sources.push_back(readFile(kSourceDir / "apps" / "tutorial" / name));
    REQUIRE(!sources.back().empty());
  }
  const std::vector<std::string> blocks = cppBlocks(doc);
  REQUIRE(blocks.size() >= 6);
  std::vector<int> blocks_from(names.size(), 0);
  for (const std::string& block : blocks) {
    INFO("block not found verbatim in apps/tutorial:\n" << block);
    bool found = false;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      if (sources[k].find(block) != std::string::npos) {
        ++blocks_from[k];
        found = true;
      }
    }
    CHECK(found);
  }
  for (std::size_t k = 0; k < names.size(); ++k) {
    INFO(names[k] << " is not embedded at all");
    CHECK(blocks_from[k] > 0);
  }
}

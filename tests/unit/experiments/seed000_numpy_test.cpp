// Seed 000's runs through the library against numpy's own, unrounded: the same algorithm in the
// same order should agree far beyond the chapter's printed digits. The reference was made by
// running the seed's constraints.py with round() disabled (see its "_source").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kktdae/kktdae.hpp"

using namespace kktdae;

namespace {

// Found next to this source rather than through a CMake define, so that the library's test
// binary needs no build change to read it.
const std::filesystem::path kReference =
    std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "data" / "seed000_numpy_unrounded.json";

constexpr double kRelativeBound = 1e-6;
constexpr double kTipBound = 1e-6;  // [m]
/// How far the launch angle is moved to measure a run's own sensitivity [rad].
constexpr double kTiltNudge = 1e-15;

nlohmann::json loadReference() {
  std::ifstream in(kReference);
  INFO("reading " << kReference);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

struct RunKey {
  std::string system, integrator;
  std::uint64_t seed = 0;
};

/// "double-semi_implicit-3" → {double, semi_implicit, 3}.
RunKey parseKey(const std::string& key) {
  const auto first = key.find('-'), last = key.rfind('-');
  return {key.substr(0, first), key.substr(first + 1, last - first - 1), std::stoull(key.substr(last + 1))};
}

/// The chapter's run: unit masses and lengths, dt 0.005, 4000 steps, none vs Baumgarte ω = 20.
std::vector<ChainModeResult> runSeed000(const RunKey& key, double tilt) {
  const PendulumChain chain(PendulumChainParams::uniform(key.system == "pendulum" ? 1 : 2));
  SimulationOptions options;
  options.integrator = parseIntegrator(key.integrator);
  options.kkt.form = KktForm::Schur;
  options.dt = 0.005;
  options.steps = 4000;
  const std::vector<ChainMode> modes = {{"none", Stabilization::none()}, {"baumgarte", Stabilization::critical(20.0)}};
  return runChainComparison(chain, chain.initialState(tilt), modes, options, /*record_trace=*/false);
}

double relativeChange(double value, double reference) {
  return value == reference ? 0.0 : std::abs(value - reference) / std::abs(reference);
}

double tipDistance(const Eigen::Vector3d& tip, const nlohmann::json& expected) {
  return (tip - Eigen::Vector3d(expected[0].get<double>(), expected[1].get<double>(), expected[2].get<double>())).norm();
}

}  // namespace

TEST_CASE("seed000 numpy: the reference covers pendulum and double, semi-implicit and RK4, seeds 0-3") {
  const auto runs = loadReference()["runs"];
  for (const char* system : {"pendulum", "double"}) {
    for (const char* integrator : {"semi_implicit", "rk4"}) {
      for (int seed = 0; seed < 4; ++seed) {
        const std::string key = std::string(system) + "-" + integrator + "-" + std::to_string(seed);
        INFO(key);
        REQUIRE(runs.contains(key));
        CHECK(runs[key].contains("none"));
        CHECK(runs[key].contains("baumgarte"));
      }
    }
  }
}

TEST_CASE("seed000 numpy: every metric within 1e-6 relative, or within the run's own sensitivity") {
  const auto runs = loadReference()["runs"];
  for (const auto& [key_text, modes] : runs.items()) {
    const RunKey key = parseKey(key_text);
    NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(key.seed);
    const double tilt = rng.uniform(-0.05, 0.05);
    const auto ours = runSeed000(key, tilt);
    const auto nudged = runSeed000(key, tilt + kTiltNudge);
    REQUIRE(ours.size() == 2);
    REQUIRE(nudged.size() == 2);
    for (std::size_t m = 0; m < ours.size(); ++m) {
      const ChainModeResult& r = ours[m];
      const ChainRunMetrics& a = r.metrics;
      const ChainRunMetrics& b = nudged[m].metrics;
      INFO(key_text << " " << r.name);
      REQUIRE(r.summary.ok());
      REQUIRE(nudged[m].summary.ok());
      REQUIRE(modes.contains(r.name));
      const auto& expected = modes[r.name];

      // A chaotic run amplifies a last-bit difference as much as it amplifies the nudge; no
      // arithmetic short of numpy's own can beat that, so there the bound follows the run.
      const double sensitivity = std::max({relativeChange(b.max_violation, a.max_violation),
                                           relativeChange(b.final_violation, a.final_violation),
                                           relativeChange(b.energy_rel_max, a.energy_rel_max)});
      const double bound = std::max(kRelativeBound, 10.0 * sensitivity);
      const double tip_bound = std::max(kTipBound, 10.0 * (b.tip_final - a.tip_final).norm());

      const std::pair<const char*, double> metrics[] = {{"max_violation", a.max_violation},
                                                        {"final_violation", a.final_violation},
                                                        {"energy_rel_max", a.energy_rel_max}};
      double worst = 0.0;
      for (const auto& [name, got] : metrics) worst = std::max(worst, relativeChange(got, expected[name].get<double>()));
      const double tip_distance = tipDistance(a.tip_final, expected["tip_final"]);
      WARN(key_text << " " << r.name << ": bound " << bound << " relative, " << tip_bound << " m at the tip (a "
                    << kTiltNudge << " rad nudge moves the metrics by " << sensitivity << "); kktdae vs numpy: "
                    << worst << " relative, " << tip_distance << " m");

      for (const auto& [name, got] : metrics) {
        const double want = expected[name].get<double>();
        INFO(name << ": numpy " << want << ", kktdae " << got << ", relative " << relativeChange(got, want));
        CHECK(std::abs(got - want) <= bound * std::abs(want));
      }
      INFO("tip_final: kktdae is " << tip_distance << " m from numpy's");
      CHECK(tip_distance <= tip_bound);
    }
  }
}

#include "constraints/constraints_cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <unordered_set>

#include "common/cli_validators.hpp"
#include "common/generalized_alpha_flags.hpp"
#include "kktdae/kktdae.hpp"

namespace kktdae::apps {

void addConstraintsFlags(CLI::App& app, ConstraintsFlags& flags) {
  // A string, parsed by parseSeed: CLI11's integer conversion would take "1e3" or wrap "-1".
  auto* seed = app.add_option("--seed", flags.seed_text, "seeds the launch-angle jitter (numpy default_rng); 0 .. 2^64-1")
                   ->capture_default_str();
  app.add_option("--system", flags.system, "a 1-, 2- or 3-link chain (overridden by --links)")
      ->check(CLI::IsMember({"pendulum", "double", "triple"}))
      ->capture_default_str();
  app.add_option("--integrator", flags.integrator,
                 "fixed-step (euler, semi_implicit, rk4, rattle, generalized_alpha, hht: step dt) or adaptive (SUNDIALS: outputs every dt)")
      ->check(CLI::IsMember(integratorChoices()))
      ->capture_default_str();
  addGeneralizedAlphaFlags(app, flags.generalized_alpha);
  addToleranceFlags(app, flags.rtol, flags.atol);
  app.add_option("--stabilization", flags.stabilization, "'all' runs none and baumgarte side by side (the chapter); 'every' adds projection and soft (MuJoCo-style)")
      ->check(CLI::IsMember({"all", "none", "baumgarte", "every"}))
      ->capture_default_str();
  app.add_option("--baumgarte", flags.baumgarte,
                 "Baumgarte frequency omega [rad/s]: feedback 2*omega*phidot + omega^2*phi (critically damped); "
                 "'auto' asks recommendBaumgarte() for this integrator and dt (adaptive ones: for the chain's motion rate, "
                 "measured by one short run); 'auto-measured' also bisects the fixed-step integrator's real limit of "
                 "dt*omega on the chain over this run's dt and length and applies the safety factor to it (about a "
                 "dozen runs; adaptive ones: as 'auto'); 'auto-scan' (adaptive integrators) measures the gain on the chain "
                 "instead: a scan of omega over the same short run and a finer one around its best, a few hundred runs "
                 "(docs/baumgarte.md section 9, "
                 "'Measured gains')")
      ->capture_default_str();
  app.add_option("--dt", flags.dt, "time step [s]; the output spacing of the adaptive integrators")
      ->check(finitePositive())
      ->capture_default_str();
  app.add_option("--steps", flags.steps, "number of steps (output intervals for the adaptive integrators)")
      ->check(integerInRange(1, kMaxSteps))
      ->capture_default_str();
  app.add_flag("--smoke", flags.smoke, "fixed 800-step run; two runs match byte for byte");
  app.add_option("--device", flags.device, "CPU only; kept for parity with the chapter")
      ->check(CLI::IsMember({"cpu"}))
      ->capture_default_str();
  app.add_option("--out", flags.out, "output directory")->capture_default_str();
  app.add_flag("--rerun,!--no-rerun", flags.rerun,
               "write the recording (CSV and plots); --no-rerun keeps only metrics and the table");
  app.add_option("--links", flags.links, "chain of any number of links (overrides --system)")
      ->check(integerInRange(1, kMaxLinks));
  app.add_option("--form", flags.form, "KKT form")->check(CLI::IsMember({"schur", "block"}))->capture_default_str();
  auto* tilt = app.add_option("--tilt", flags.tilt, "launch angle below +x [rad], instead of the seeded draw")
                   ->check(finiteNumber());
  auto* seeds = app.add_option("--seeds", flags.seeds_text,
                               "run the chapter once per seed, in parallel: '0-99', '7' or '0,5,7-9'; writes one "
                               "metrics row per seed to seeds.csv and seeds.json (no recording)")
                    ->excludes(seed)
                    ->excludes(tilt);
  app.add_option("--threads", flags.threads, "threads of the --seeds sweep (0: all cores); the files are the same for any count")
      ->check(integerInRange(0, kktdae::kMaxSweepThreads))
      ->needs(seeds)
      ->capture_default_str();
  app.add_option("--path", flags.path, "KKT linear algebra: auto picks sparse for long chains")
      ->check(CLI::IsMember({"auto", "dense", "sparse"}))
      ->capture_default_str();
  app.add_option("--stop-when", flags.stop_when,
                 "end each run where a condition becomes true: q[i], x, y (the tip) or tension[k] (link k from "
                 "the pivot, 0 first), then < or >, then a number, e.g. 'tension[0]<0'; the located event goes "
                 "into metrics.json")
      ->excludes(seeds);
}

void finishConstraintsFlags(ConstraintsFlags& flags) {
  flags.seed = parseSeed("--seed", flags.seed_text);
  if (flags.seeds_text) flags.seeds = parseSeedList("--seeds", *flags.seeds_text);
  const kktdae::Integrator integrator = kktdae::parseIntegrator(flags.integrator);
  if (integrator == kktdae::Integrator::Rattle && flags.stabilization == "every") {
    throw CLI::ValidationError("--stabilization", "'every' includes projection after each step, which rattle "
                                                  "refuses: it holds phi = 0 and J qdot = 0 itself (use all, none "
                                                  "or baumgarte)");
  }
  if (flags.baumgarte == "auto-scan" && !kktdae::isAdaptive(integrator)) {
    throw CLI::ValidationError("--baumgarte", "'auto-scan' scans the gain of an adaptive integrator (cvode_bdf, "
                                              "cvode_adams, ida_index1), not " + flags.integrator +
                                                  " (a fixed-step one: use auto-measured)");
  }
  if (flags.baumgarte == "auto" || flags.baumgarte == "auto-measured" || flags.baumgarte == "auto-scan") {
    const std::string choice = "'" + flags.baumgarte + "'";
    if (integrator == kktdae::Integrator::IdaGgl) {
      throw CLI::ValidationError("--baumgarte", choice + " does not apply to ida_ggl: it uses no Baumgarte gain, "
                                                "GGL holds phi = 0 and phi_dot = 0 itself");
    }
    if (integrator == kktdae::Integrator::Rattle) {
      throw CLI::ValidationError("--baumgarte", choice + " does not apply to rattle: it uses no Baumgarte gain, "
                                                "every step solves phi = 0 and J qdot = 0 itself");
    }
    if (integrator == kktdae::Integrator::GeneralizedAlpha || integrator == kktdae::Integrator::Hht) {
      throw CLI::ValidationError("--baumgarte", choice + " does not apply to " + flags.integrator +
                                                    ": it uses no Baumgarte gain, every step solves phi = 0 itself");
    }
    const int links = flags.links ? *flags.links : flags.system == "pendulum" ? 1 : flags.system == "double" ? 2 : 3;
    const double length = flags.dt * static_cast<double>(flags.steps);
    if (kktdae::isAdaptive(integrator)) {
      // The adaptive gain follows the chain's own motion rate, measured by one short run at the
      // run's tolerance without feedback (docs/notes/baumgarte-adaptive-gains.md).
      const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(links));
      kktdae::ModelGuidanceOptions guidance;
      guidance.horizon = length > 0.0 ? std::min(2.0, length) : 2.0;
      guidance.tolerance = flags.rtol;
      // ida_index1's gain is for the whole run, which the measuring run may stop short of.
      if (length > 0.0) guidance.guidance.horizon = length;
      if (flags.baumgarte == "auto-scan") {
        // The rule's run, then the gain measured on the same run: the middle of the band of
        // near-best gains per model call, against a tight ida_ggl reference.
        guidance.adaptive_mode = kktdae::AdaptiveGainMode::Scan;
        guidance.tuner.parallel.threads = flags.threads;
      }
      const kktdae::ModelGuidance g = kktdae::recommendBaumgarteForModel(
          chain, chain.initialState(flags.tilt.value_or(0.0)), integrator, flags.dt, guidance);
      flags.baumgarte_omega = g.recommendation.omega;
      flags.baumgarte_reasoning = g.recommendation.reasoning;
      flags.baumgarte_tuning = g.tuning;
    } else if (flags.baumgarte == "auto-measured") {
      // The real limit on the moving chain, over this run's own dt and length: it moves with the
      // horizon (docs/baumgarte.md §4, §5), so a shorter or longer run would measure another one.
      const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(links));
      kktdae::ModelGuidanceOptions guidance;
      guidance.horizon = length > 0.0 ? length : flags.dt;
      guidance.min_steps = 10;  // the classification's floor (StabilityMapOptions refuses fewer)
      const kktdae::ModelGuidance g = kktdae::recommendBaumgarteForModel(
          chain, chain.initialState(flags.tilt.value_or(0.0)), integrator, flags.dt, guidance);
      flags.baumgarte_omega = g.recommendation.omega;
      flags.baumgarte_measured_limit = g.limit.found ? g.limit.limit : 0.0;
      flags.baumgarte_reasoning = g.recommendation.reasoning;
      if (!g.limit.found) flags.baumgarte_reasoning += " (no limit measured: " + g.limit.message + ")";
    } else {
      const kktdae::BaumgarteRecommendation r = kktdae::recommendBaumgarte(integrator, flags.dt);
      flags.baumgarte_omega = r.omega;
      flags.baumgarte_reasoning = r.reasoning;
    }
  } else {
    flags.baumgarte_omega = parseNonNegative("--baumgarte", flags.baumgarte);
  }
}

std::uint64_t parseSeed(const std::string& flag, const std::string& text) {
  const std::string expected = "expected an integer from 0 to 18446744073709551615 (numpy's default_rng seeds), got '" +
                               text + "'";
  // from_chars stops at the first non-digit and reports success: insist on digits only, so
  // that "12abc" and "1e3" are refused rather than read as 12 and 1.
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    throw CLI::ValidationError(flag, expected);
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) throw CLI::ValidationError(flag, expected);
  return value;
}

std::vector<std::uint64_t> parseSeedList(const std::string& flag, const std::string& text) {
  auto refuse = [&](const std::string& why) {
    throw CLI::ValidationError(flag, why + " in '" + text + "' (expected seeds and ranges such as 0-99 or 0,5,7-9)");
  };
  if (text.empty()) refuse("no seed");
  std::vector<std::uint64_t> seeds;
  std::unordered_set<std::uint64_t> seen;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    const std::size_t dash = item.find('-');
    std::uint64_t first = 0, last = 0;
    try {
      first = parseSeed(flag, item.substr(0, dash));
      last = dash == std::string::npos ? first : parseSeed(flag, item.substr(dash + 1));
    } catch (const CLI::ValidationError&) {
      refuse("'" + item + "' is not a seed (0 to 18446744073709551615) or a range of them");
    }
    if (last < first) refuse("the range '" + item + "' runs backwards");
    if (last - first >= kMaxSweepSeeds - seeds.size()) {
      refuse("more than " + std::to_string(kMaxSweepSeeds) + " seeds");
    }
    for (std::uint64_t seed = first;; ++seed) {
      if (!seen.insert(seed).second) refuse("seed " + std::to_string(seed) + " is listed twice");
      seeds.push_back(seed);
      if (seed == last) break;  // not seed <= last: the range may end at 2^64 - 1
    }
    begin = comma + 1;
  }
  return seeds;
}

}  // namespace kktdae::apps

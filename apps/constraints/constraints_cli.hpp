#pragma once
// Flags of kktdae-constraints: seed 000's constraints.py flags with its names, choices and
// defaults, plus kktdae's own (--links, --form, --tilt).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kktdae/experiments/adaptive_gain_tuner.hpp"
#include "kktdae/integrators/generalized_alpha_options.hpp"

namespace kktdae::apps {

/// Most steps a run may take: the recording holds every step, and past this neither it nor the
/// step count's arithmetic stays sensible.
constexpr long kMaxSteps = 1000000000;

/// Most links --links accepts; the memory estimate refuses far fewer on most machines (about
/// 1 kB per link and mode).
constexpr int kMaxLinks = 1000000000;

/// Most seeds one --seeds sweep may list: a typo such as 0-1e9 should be a usage error, not a
/// day of computing and a gigabyte of rows.
constexpr std::uint64_t kMaxSweepSeeds = 100000;

struct ConstraintsFlags {
  std::string seed_text = "0";  ///< as typed; parsed into `seed`
  std::string system = "double";
  std::string integrator = "semi_implicit";
  kktdae::GeneralizedAlphaOptions generalized_alpha;  ///< --rho-inf, --hht-alpha
  double rtol = 1e-6;  ///< adaptive integrators only
  double atol = 1e-9;
  std::string stabilization = "all";
  std::string baumgarte = "20";
  double dt = 0.005;
  long steps = 4000;
  bool smoke = false;
  std::string device = "cpu";
  std::string out = "outputs/ch3.4-constraints";
  bool rerun = true;
  std::optional<int> links;
  std::string form = "schur";
  std::optional<double> tilt;
  std::string path = "auto";  ///< KKT linear algebra: auto (sparse from 4 links), dense, sparse
  std::optional<std::string> seeds_text;  ///< --seeds as typed; absent: one run of --seed
  int threads = 0;         ///< threads of the --seeds sweep; 0 = all cores
  /// --stop-when: a condition (event_condition.hpp's grammar, e.g. "tension[0]<0") that ends each
  /// mode's run where it becomes true; absent: no events, the chapter's files unchanged.
  std::optional<std::string> stop_when;

  /// Derived after parsing.
  std::uint64_t seed = 0;  ///< numpy's default_rng accepts 0 .. 2^64 - 1 through this path
  double baumgarte_omega = 20.0;
  /// --baumgarte auto-measured with a fixed-step integrator: the bisected limit of dt·omega on
  /// the chain over the run's own dt and length (0: none measured, or the closed form was used).
  double baumgarte_measured_limit = 0.0;
  /// --baumgarte auto or auto-measured: recommendBaumgarte's sentence (empty for a number).
  std::string baumgarte_reasoning;
  /// --baumgarte auto-scan: what the scan of the gain measured (used = false: the rule's gain).
  kktdae::AdaptiveGainTuning baumgarte_tuning;
  std::vector<std::uint64_t> seeds;  ///< from --seeds, in the order listed; empty without it
};

/// Registers every flag on `app`, with validators that turn bad values into usage errors.
void addConstraintsFlags(CLI::App& app, ConstraintsFlags& flags);

/// Checks what CLI11's validators cannot (the --seed, --seeds and --baumgarte strings); throws
/// CLI::ValidationError naming the flag.
void finishConstraintsFlags(ConstraintsFlags& flags);

/// Parses a decimal seed in 0 .. 2^64 - 1 exactly (no sign, exponent or fraction); throws
/// CLI::ValidationError naming `flag` otherwise.
std::uint64_t parseSeed(const std::string& flag, const std::string& text);

/// Parses a seed list: comma-separated seeds and inclusive ranges ("0-99", "7", "0,5,7-9"), in
/// the order given. Throws CLI::ValidationError naming `flag` for a malformed item, a range
/// that runs backwards, a seed listed twice, or more than kMaxSweepSeeds seeds.
std::vector<std::uint64_t> parseSeedList(const std::string& flag, const std::string& text);

}  // namespace kktdae::apps

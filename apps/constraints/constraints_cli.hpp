#pragma once
// Flags of kktdae-constraints: seed 000's constraints.py flags with its names, choices and
// defaults, plus kktdae's own (--links, --form, --tilt).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace kktdae::apps {

struct ConstraintsFlags {
  std::int64_t seed = 0;
  std::string system = "double";
  std::string integrator = "semi_implicit";
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

  /// Derived after parsing.
  double baumgarte_omega = 20.0;
};

/// Registers every flag on `app`, with validators that turn bad values into usage errors.
void addConstraintsFlags(CLI::App& app, ConstraintsFlags& flags);

/// Checks what CLI11's validators cannot (the --baumgarte string); throws CLI::ValidationError.
void finishConstraintsFlags(ConstraintsFlags& flags);

}  // namespace kktdae::apps

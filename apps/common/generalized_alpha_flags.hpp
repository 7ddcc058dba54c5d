#pragma once
/// @file
/// The flags of the generalized-α and HHT-α integrators, shared by every app that runs them.

#include <CLI/CLI.hpp>

#include "kktdae/integrators/generalized_alpha_options.hpp"

namespace kktdae::apps {

/// --rho-inf (generalized_alpha's ρ∞ ∈ [0, 1]) and --hht-alpha (hht's α ∈ [−1/3, 0]) into `options`;
/// out-of-range values are usage errors naming the flag (the library's validate() then agrees).
inline void addGeneralizedAlphaFlags(CLI::App& app, GeneralizedAlphaOptions& options) {
  app.add_option("--rho-inf", options.rho_inf,
                 "generalized_alpha: spectral radius at infinite frequency in [0, 1] (1: no numerical damping)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--hht-alpha", options.hht_alpha, "hht: alpha in [-1/3, 0] (0: the trapezoidal rule)")
      ->check(CLI::Range(-1.0 / 3.0, 0.0))
      ->capture_default_str();
}

}  // namespace kktdae::apps

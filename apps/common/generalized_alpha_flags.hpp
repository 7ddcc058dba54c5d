#pragma once
/// @file
/// The flags of the generalized-α and HHT-α integrators, shared by every app that runs them, and
/// how the apps' files record the values a run used.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kktdae/integrators/generalized_alpha_options.hpp"
#include "kktdae/integrators/integrator.hpp"

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

/// Whether `integrator` is one of `integrators`.
inline bool listsIntegrator(const std::vector<Integrator>& integrators, Integrator integrator) {
  return std::find(integrators.begin(), integrators.end(), integrator) != integrators.end();
}

/// What a run's JSON files record of `options` for the integrators it ran: "rho_inf" when
/// generalized_alpha is among them, "hht_alpha" when hht is, each only when it differs from the
/// library's default (so the files of a run at the defaults stay as they were before the flags
/// existed; docs/integrators.md gives the defaults). Empty (null) when there is nothing to record.
inline nlohmann::json generalizedAlphaSettings(const GeneralizedAlphaOptions& options,
                                               const std::vector<Integrator>& integrators) {
  const GeneralizedAlphaOptions defaults;
  nlohmann::json settings;
  if (listsIntegrator(integrators, Integrator::GeneralizedAlpha) && options.rho_inf != defaults.rho_inf) {
    settings["rho_inf"] = options.rho_inf;
  }
  if (listsIntegrator(integrators, Integrator::Hht) && options.hht_alpha != defaults.hht_alpha) {
    settings["hht_alpha"] = options.hht_alpha;
  }
  return settings;
}

/// A usage error for --rho-inf / --hht-alpha given (per `app`) although the integrator they set
/// is not among `integrators`; `where` names what chose the integrators (e.g. "--integrators").
inline void requireGeneralizedAlphaFlagsApply(const CLI::App& app, const std::vector<Integrator>& integrators,
                                              const std::string& where) {
  if (app.count("--rho-inf") > 0 && !listsIntegrator(integrators, Integrator::GeneralizedAlpha)) {
    throw CLI::ValidationError("--rho-inf", "applies to generalized_alpha only, which " + where + " does not run");
  }
  if (app.count("--hht-alpha") > 0 && !listsIntegrator(integrators, Integrator::Hht)) {
    throw CLI::ValidationError("--hht-alpha", "applies to hht only, which " + where + " does not run");
  }
}

}  // namespace kktdae::apps

#pragma once
// CLI11 validators the apps share; CLI11's own PositiveNumber lets NaN through.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kktdae::apps {

/// Accepts finite numbers > 0 (rejects 0, negatives, nan, inf).
CLI::Validator finitePositive();
/// Accepts any finite number.
CLI::Validator finiteNumber();
/// The integrator names the library knows (kktdae::allIntegrators()), for IsMember checks: one
/// list, so a new integrator reaches every app.
std::vector<std::string> integratorChoices();
/// --rtol and --atol of the adaptive integrators, finite and > 0, with their defaults shown.
void addToleranceFlags(CLI::App& app, double& rtol, double& atol);

/// Parses `text` as a finite number >= 0; throws CLI::ValidationError naming `flag` otherwise.
double parseNonNegative(const std::string& flag, const std::string& text);

}  // namespace kktdae::apps

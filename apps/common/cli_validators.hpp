#pragma once
// CLI11 validators the apps share; CLI11's own PositiveNumber lets NaN through.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kktdae::apps {

/// Accepts finite numbers > 0 (rejects 0, negatives, nan, inf).
CLI::Validator finitePositive();
/// Accepts finite numbers >= 0 (CLI11's NonNegativeNumber lets nan through and prints its range
/// as 300 digits).
CLI::Validator finiteNonNegative();
/// Accepts any finite number.
CLI::Validator finiteNumber();
/// The integrator names the library knows (kktdae::allIntegrators()), for IsMember checks: one
/// list, so a new integrator reaches every app.
std::vector<std::string> integratorChoices();
/// Accepts integers from `low` to `high` written as digits (an optional leading '-'), so that
/// "1e3" or "2.5" is refused as "not an integer" rather than misread or reported as out of range.
CLI::Validator integerInRange(long low, long high);
/// Accepts finite numbers from `low` to `high`; the message prints the bounds as typed
/// (1e-13, not 0.000000) and refuses nan, which CLI::Range lets through.
CLI::Validator finiteInRange(double low, double high);
/// --rtol and --atol of the adaptive integrators, finite and > 0, with their defaults shown.
void addToleranceFlags(CLI::App& app, double& rtol, double& atol);

/// Parses `text` as a finite number >= 0; throws CLI::ValidationError naming `flag` otherwise.
double parseNonNegative(const std::string& flag, const std::string& text);

}  // namespace kktdae::apps

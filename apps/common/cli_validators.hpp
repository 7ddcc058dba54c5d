#pragma once
// CLI11 validators the apps share; CLI11's own PositiveNumber lets NaN through.

#include <CLI/CLI.hpp>
#include <string>

namespace kktdae::apps {

/// Accepts finite numbers > 0 (rejects 0, negatives, nan, inf).
CLI::Validator finitePositive();
/// Accepts any finite number.
CLI::Validator finiteNumber();
/// Parses `text` as a finite number >= 0; throws CLI::ValidationError naming `flag` otherwise.
double parseNonNegative(const std::string& flag, const std::string& text);

}  // namespace kktdae::apps

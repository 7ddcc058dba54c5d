#include "common/cli_validators.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/number_format.hpp"
#include "kktdae/integrators/integrator.hpp"

namespace kktdae::apps {
namespace {

bool parseDouble(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

}  // namespace

CLI::Validator finitePositive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        if (!parseDouble(text, value) || !std::isfinite(value) || value <= 0.0) {
          return "must be a finite number > 0, got '" + text + "'";
        }
        return {};
      },
      "POSITIVE");
}

CLI::Validator finiteNonNegative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        if (!parseDouble(text, value) || !std::isfinite(value) || value < 0.0) {
          return "must be a finite number >= 0, got '" + text + "'";
        }
        return {};
      },
      "NONNEGATIVE");
}

CLI::Validator finiteNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        if (!parseDouble(text, value) || !std::isfinite(value)) return "must be a finite number, got '" + text + "'";
        return {};
      },
      "FINITE");
}

CLI::Validator integerInRange(long low, long high) {
  const std::string range = "an integer from " + std::to_string(low) + " to " + std::to_string(high);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
        if (text.size() == digits || text.find_first_not_of("0123456789", digits) != std::string::npos) {
          return "must be " + range + ", got '" + text + "' (not an integer)";
        }
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (errno == ERANGE || value < low || value > high) return "must be " + range + ", got " + text;
        return {};
      },
      std::to_string(low) + ".." + std::to_string(high));
}

CLI::Validator finiteInRange(double low, double high) {
  const std::string range = "a finite number from " + pythonRepr(low) + " to " + pythonRepr(high);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0.0;
        if (!parseDouble(text, value) || !std::isfinite(value)) return "must be " + range + ", got '" + text + "'";
        if (value < low || value > high) return "must be " + range + ", got " + text;
        return {};
      },
      pythonRepr(low) + ".." + pythonRepr(high));
}

std::vector<std::string> integratorChoices() {
  std::vector<std::string> names;
  for (kktdae::Integrator integrator : kktdae::allIntegrators()) names.emplace_back(kktdae::toString(integrator));
  return names;
}

void addToleranceFlags(CLI::App& app, double& rtol, double& atol) {
  app.add_option("--rtol", rtol, "relative tolerance of the adaptive integrators")
      ->check(finitePositive())
      ->capture_default_str();
  app.add_option("--atol", atol, "absolute tolerance of the adaptive integrators")
      ->check(finitePositive())
      ->capture_default_str();
}

double parseNonNegative(const std::string& flag, const std::string& text) {
  double value = 0.0;
  if (!parseDouble(text, value) || !std::isfinite(value) || value < 0.0) {
    throw CLI::ValidationError(flag, "expected a finite number >= 0, got '" + text + "'");
  }
  return value;
}

}  // namespace kktdae::apps

#include "common/cli_validators.hpp"

#include <cmath>
#include <cstdlib>

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

CLI::Validator finiteNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0.0;
        if (!parseDouble(text, value) || !std::isfinite(value)) return "must be a finite number, got '" + text + "'";
        return {};
      },
      "FINITE");
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

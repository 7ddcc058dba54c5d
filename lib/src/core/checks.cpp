#include "kktdae/core/checks.hpp"

#include <charconv>

namespace kktdae {

void throwInvalid(const std::string& what, const std::string& detail) {
  throw std::invalid_argument(what + ": " + detail);
}

std::string formatDouble(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round trip
  return std::string(buffer, result.ptr);
}

void requireSize(const char* name, Eigen::Index actual, Eigen::Index expected) {
  if (actual != expected) {
    throwInvalid(name, "size " + std::to_string(actual) + ", expected " + std::to_string(expected));
  }
}

void requirePositive(const char* name, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    throwInvalid(name, "must be finite and > 0, got " + formatDouble(value));
  }
}

void requireNonNegative(const char* name, double value) {
  if (!(std::isfinite(value) && value >= 0.0)) {
    throwInvalid(name, "must be finite and >= 0, got " + formatDouble(value));
  }
}

void requireFinite(const char* name, const Eigen::Ref<const Eigen::VectorXd>& values) {
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throwInvalid(name, "entry " + std::to_string(i) + " is not finite (" + formatDouble(values[i]) + ")");
    }
  }
}

}  // namespace kktdae

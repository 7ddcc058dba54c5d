#include "kktdae/autodiff/autodiff_parametric_system.hpp"

#include <cmath>
#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae::detail {

void checkParameterDeclaration(const std::vector<std::string>& names, ConstVectorRef values, int max_size) {
  if (names.empty()) throwInvalid("parameter names", "a parametric model needs at least one parameter, got none");
  requireAutoDiffSize("np", static_cast<int>(names.size()), max_size);
  requireSize("parameter values", values.size(), static_cast<Eigen::Index>(names.size()));
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) throwInvalid("parameter names", "entry " + std::to_string(i) + " is empty");
    for (std::size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) throwInvalid("parameter names", "'" + names[i] + "' appears twice");
    }
    if (!std::isfinite(values[static_cast<Eigen::Index>(i)])) {
      throwInvalid("parameter " + names[i], "must be finite, got " + formatDouble(values[static_cast<Eigen::Index>(i)]));
    }
  }
}

void checkParameterValues(const std::string& model, const std::vector<std::string>& names, ConstVectorRef p) {
  if (p.size() != static_cast<Eigen::Index>(names.size())) {
    throwInvalid("p", model + " has " + std::to_string(names.size()) + " parameters, got " + std::to_string(p.size()) +
                          " values");
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!std::isfinite(p[static_cast<Eigen::Index>(i)])) {
      throwInvalid("parameter " + names[i], model + ": must be finite, got " + formatDouble(p[static_cast<Eigen::Index>(i)]));
    }
  }
}

}  // namespace kktdae::detail

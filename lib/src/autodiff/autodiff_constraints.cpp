#include "kktdae/autodiff/autodiff_constraints.hpp"

#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae::detail {

void requireAutoDiffSize(const char* what, int value, int max_size) {
  if (value < 0) throwInvalid(what, "must be >= 0, got " + std::to_string(value));
  if (value > max_size) {
    throwInvalid(what, std::to_string(value) + " exceeds the AD buffer capacity MaxSize = " +
                           std::to_string(max_size) + " (raise the MaxSize template argument)");
  }
}

void throwMissingConstraintFunction(int nc) {
  throwInvalid("nc", std::to_string(nc) +
                         " constraints declared, but the model defines no member template "
                         "phi<Scalar>(q, t, phi) to evaluate them");
}

}  // namespace kktdae::detail

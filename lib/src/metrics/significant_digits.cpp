#include "kktdae/metrics/significant_digits.hpp"

#include <cmath>
#include <limits>

#include "kktdae/core/checks.hpp"

namespace kktdae {

namespace {

void checkVectors(ConstVectorRef y, ConstVectorRef ref) {
  requireSize("y", y.size(), ref.size());
  if (ref.size() == 0) throwInvalid("ref", "must not be empty");
  requireFinite("y", y);
  requireFinite("ref", ref);
}

double digits(double worst) {
  return worst > 0.0 ? -std::log10(worst) : std::numeric_limits<double>::infinity();
}

}  // namespace

double significantCorrectDigits(ConstVectorRef y, ConstVectorRef ref) {
  checkVectors(y, ref);
  double worst = 0.0;
  for (Eigen::Index i = 0; i < ref.size(); ++i) {
    if (ref[i] == 0.0) {
      throwInvalid("ref", "entry " + std::to_string(i) + " is 0: its relative error is undefined (use mescd)");
    }
    worst = std::max(worst, std::abs(y[i] - ref[i]) / std::abs(ref[i]));
  }
  return digits(worst);
}

double mixedErrorSignificantDigits(ConstVectorRef y, ConstVectorRef ref, double rtol, double atol) {
  checkVectors(y, ref);
  requirePositive("rtol", rtol);
  requirePositive("atol", atol);
  const double floor = atol / rtol;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < ref.size(); ++i) {
    worst = std::max(worst, std::abs(y[i] - ref[i]) / (floor + std::abs(ref[i])));
  }
  return digits(worst);
}

}  // namespace kktdae

#pragma once
// The bisection both stability limits share: a bracket [lower, upper] with the lower end stable
// and the upper end not, halved until narrower than `tolerance`.

#include <utility>

#include "kktdae/core/checks.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae::detail {

/// The bracket of dt·ω every limit search starts from: the options' ends, or 0.5× and 1.15× the
/// closed form baumgarteStabilityLimit(integrator, ζ) where they are 0. Throws
/// std::invalid_argument naming "upper" if the bracket is empty.
inline std::pair<double, double> limitBracket(Integrator integrator, double zeta, double lower, double upper) {
  const double closed_form = baumgarteStabilityLimit(integrator, zeta);
  const double lo = lower > 0.0 ? lower : 0.5 * closed_form;
  const double hi = upper > 0.0 ? upper : 1.15 * closed_form;
  if (!(hi > lo)) throwInvalid("upper", "must exceed lower (" + formatDouble(lo) + "), got " + formatDouble(hi));
  return {lo, hi};
}

/// Halves [lower, upper] on `stableAt(mid)` (true: the crossing lies above mid) until the width
/// is at most `tolerance`; returns the final bracket. Assumes a single crossing inside.
template <class StableAt>
std::pair<double, double> bisectBracket(double lower, double upper, double tolerance, StableAt&& stableAt) {
  while (upper - lower > tolerance) {
    const double mid = 0.5 * (lower + upper);
    if (stableAt(mid)) {
      lower = mid;
    } else {
      upper = mid;
    }
  }
  return {lower, upper};
}

}  // namespace kktdae::detail

#pragma once
// The bisection both stability limits share: a bracket [lower, upper] with the lower end stable
// and the upper end not, halved until narrower than `tolerance`.

#include <utility>

namespace kktdae::detail {

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

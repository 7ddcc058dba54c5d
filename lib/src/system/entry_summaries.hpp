#pragma once
// What checkModel(), checkDerivatives() and the output probes share: the NaN that stands for "no
// value" (in a report, and as the first fill of a probed output), and the largest magnitude that
// scales a comparison.

#include <limits>

#include "kktdae/core/types.hpp"

namespace kktdae::detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// max |m_ij|, and 0 for an empty matrix (whose maxCoeff() Eigen leaves undefined).
inline double largestMagnitude(ConstMatrixRef m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

}  // namespace kktdae::detail

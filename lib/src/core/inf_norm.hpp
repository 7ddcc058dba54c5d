#pragma once
// ‖x‖∞ with an empty vector's norm 0 (Eigen's lpNorm<Infinity> asserts on an empty one): the
// residuals of the Newton iterations and projections, some of which have no constraint rows.
#include "kktdae/core/types.hpp"

namespace kktdae::detail {

inline double infNorm(const Vector& x) { return x.size() ? x.lpNorm<Eigen::Infinity>() : 0.0; }

}  // namespace kktdae::detail

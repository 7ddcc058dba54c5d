#pragma once
// h of a Mechanism over a scalar (internal header): gravity, springs and rotational springs, so
// that Mechanism::bias() evaluates it in double and ParametricMechanism::termsTangent() over
// Dual<double> seeded with (δq, δq̇) for δh.

#include <Eigen/Core>

#include "attachment_kinematics.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody::detail {

/// h = −Σ Gᵀ m g − Σ springs' and rotational springs' generalized forces at (q, v) (h nq, set
/// here). Defined for S = double and S = Dual<double>.
template <typename S>
void appliedForcesOf(const MechanismData& data, ConstVectorRefOfS<S> q, ConstVectorRefOfS<S> v,
                     Eigen::Ref<VectorOfS<S>> h);

}  // namespace kktdae::multibody::detail

#pragma once
/// @file
/// The heavy top of Brüls, Cardona and Arnold built from one body and one spherical joint's worth
/// of geometry: a pivoted body (body.hpp) about the origin. Its coordinates, rows and terms are
/// those of the hand-written HeavyTop (models/heavy_top.hpp), which cross-checks it.

#include <Eigen/Core>

#include "kktdae/core/state.hpp"
#include "kktdae/models/heavy_top.hpp"
#include "kktdae/multibody/mechanism.hpp"

namespace kktdae::multibody {

/// One pivoted body "top" (body frame at the pivot, principal axes given by `params`) under
/// gravity `params.gravity`.
Mechanism heavyTopMechanism(const HeavyTopParams& params = {});

/// The start R = I with body-frame angular velocity `omega_body` [rad/s] (the benchmark's Ω₀ by default).
State heavyTopMechanismStart(const Mechanism& top,
                             const Eigen::Vector3d& omega_body = HeavyTop::kInitialAngularVelocity);

/// u = R X − X of the top's centre of mass X (the benchmark's scored displacement) [m].
Eigen::Vector3d heavyTopDisplacement(const Mechanism& top, const HeavyTopParams& params, ConstVectorRef q);

}  // namespace kktdae::multibody

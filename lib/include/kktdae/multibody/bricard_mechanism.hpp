#pragma once
/// @file
/// Bricard's orthogonal 6R linkage: an overconstrained spatial loop. Five bars of length L and
/// the ground close a hexagon on the edges of a cube, (0,0,0) → (L,0,0) → (L,L,0) → (L,L,L) →
/// (0,L,L) → (0,0,L) → (0,0,0), with a revolute joint at each corner whose axis is normal to the
/// two edges meeting there. Grübler's count is 5·6 − 6·5 = 0, yet the loop moves with one
/// degree of freedom: one of its 30 rows depends on the others at every configuration, so a run
/// needs RankDeficiencyPolicy::MinimumNorm (or Regularize).

#include "kktdae/core/state.hpp"
#include "kktdae/multibody/mechanism.hpp"

namespace kktdae::multibody {

/// Parameters of the loop: each bar a solid cylinder (directors need a body that is not a
/// line: a thin rod's J̄ vanishes across it, body.hpp).
struct BricardParams {
  double length = 1.0;   ///< L > 0 [m]
  double mass = 1.0;     ///< each bar's mass > 0 [kg]
  double radius = 0.02;  ///< each bar's radius > 0 [m]
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};  ///< [m/s²]
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The loop in the cube configuration (at rest there: the start of builtConfiguration() with
/// q̇ = 0 is consistent).
Mechanism bricardMechanism(const BricardParams& params = {});

}  // namespace kktdae::multibody

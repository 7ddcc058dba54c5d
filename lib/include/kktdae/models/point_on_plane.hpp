#pragma once
/// @file
/// A point mass held to a line or plane: the model on which Baumgarte's linear theory is exact.

#include <Eigen/Core>

#include "kktdae/core/state.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Parameters of PointOnPlane: the point's mass, gravity and the line or plane nᵀq = c.
struct PointOnPlaneParams {
  int dimension = 2;          ///< 2 (a line in the plane) or 3 (a plane in space)
  double mass = 1.0;          ///< m > 0 [kg]
  double gravity = 9.81;      ///< g ≥ 0 [m/s²] along −y
  Eigen::Vector3d normal = Eigen::Vector3d(0.6, 0.8, 0.0);  ///< n, normalized on construction
  double offset = 0.0;        ///< c [m]: the constraint is nᵀq = c
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// q ∈ ℝ² or ℝ³, M = m I, h = (0, m g[, 0]), one constraint φ = nᵀq − c with constant J = nᵀ and
/// γ = 0. Because M and J are constant, e = φ obeys ë + 2αė + β²e = 0 exactly and every
/// fixed-step integrator maps (e, ė) by exactly the linear recursion of its stability analysis
/// (docs/baumgarte.md). λ [N/m·m = N] is the normal force: Jᵀλ = λ n.
class PointOnPlane final : public ConstrainedSystem {
 public:
  /// Uses n normalized (its first `dimension` entries); throws std::invalid_argument if `params` is
  /// invalid.
  explicit PointOnPlane(PointOnPlaneParams params = {});

  std::string name() const override { return "point_on_plane"; }
  int nq() const override { return params_.dimension; }
  int nc() const override { return 1; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;

  const PointOnPlaneParams& params() const { return params_; }  ///< the parameters as given
  /// A state with constraint error e0 and rate edot0 (moved along n), tangential velocity
  /// `sliding` along the line/plane, at t = 0.
  State offManifoldState(double e0, double edot0, double sliding = 0.0) const;

 private:
  PointOnPlaneParams params_;
  Vector normal_;  ///< n restricted to the model's dimension, unit length
};

}  // namespace kktdae

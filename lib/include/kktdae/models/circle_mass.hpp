#pragma once
/// @file
/// Seed 002's planar point mass on a circle.

#include "kktdae/core/state.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Parameters of CircleMass (seed 002's values are the defaults).
struct CircleMassParams {
  double mass = 1.0;     ///< m > 0 [kg]
  double gravity = 9.81; ///< g ≥ 0 [m/s²], along −y
  double radius = 1.0;   ///< L > 0 [m]
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// q = (x, y), M = m I, h = (0, m g), one constraint φ = x² + y² − L², J = [2x 2y],
/// γ = 2 (ẋ² + ẏ²). The constraint force is Jᵀλ = 2λ (x, y): λ [N/m] < 0 pulls toward the centre.
class CircleMass final : public ConstrainedSystem {
 public:
  /// Throws std::invalid_argument if `params` is invalid.
  explicit CircleMass(CircleMassParams params = {});

  std::string name() const override { return "circle_mass"; }
  int nq() const override { return 2; }
  int nc() const override { return 1; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  /// h, φ, J, γ, ∂φ/∂t = 0 in one call (no sparse J: jacobian_values is never asked for).
  void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;
  bool isConservative() const override { return true; }
  /// m g L [J]: the potential's range is twice this.
  double energyScale() const override { return params_.mass * params_.gravity * params_.radius; }

  const CircleMassParams& params() const { return params_; }  ///< the parameters it was built with
  /// Seed 002's start: at rest at (x0_over_radius · L, 0); 1.01 puts it 1 % off the circle.
  State initialState(double x0_over_radius = 1.01) const;

 private:
  CircleMassParams params_;
};

}  // namespace kktdae

#pragma once
/// @file
/// A rigid body spinning about a fixed point under gravity (the heavy top), in director
/// coordinates: the columns of its rotation matrix.

#include <Eigen/Core>

#include "kktdae/core/state.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Parameters of a HeavyTop. The defaults are the benchmark of Brüls, Cardona and Arnold
/// (Mech. Mach. Theory 48, 2012): its reference displacement at t = 2 s is
/// HeavyTop::kReferenceDisplacement.
struct HeavyTopParams {
  double mass = 15.0;  ///< m > 0 [kg]
  /// Principal moments of inertia about the centre of mass, in the body frame [kg m²] (each > 0).
  Eigen::Vector3d inertia_centre{0.234375, 0.46875, 0.234375};
  /// Centre of mass in the body frame, from the fixed point [m]; it must lie on a principal axis
  /// (two zero components) so that the inertia about the fixed point stays diagonal.
  Eigen::Vector3d centre_of_mass{0.0, 1.0, 0.0};
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};  ///< gravitational acceleration [m/s²]
  /// Throws std::invalid_argument naming the first bad field and its value.
  void validate() const;
};

/// q = (d₁, d₂, d₃) ∈ R⁹, the columns of the rotation R from body to space (so a body point X
/// sits at R X), with the six orthonormality rows
///
///     φ = (½(d₁·d₁ − 1), ½(d₂·d₂ − 1), ½(d₃·d₃ − 1), d₁·d₂, d₁·d₃, d₂·d₃).
///
/// The kinetic energy of a body turning about a fixed point is ½ Σₖ J̄ₖ |ḋₖ|² with
/// J̄ = ½ tr(J_O) I − J_O and J_O = J_c + m(|X|² I − X Xᵀ), the inertia about the fixed point: M
/// is constant and diagonal (J̄ₖ on the three entries of dₖ), which every integrator takes as it
/// is. V = −m g·(R X) = −m Σₖ Xₖ g·dₖ, so h is constant. The body-frame angular velocity Ω
/// gives ḋₖ = R (Ω × eₖ).
class HeavyTop final : public ConstrainedSystem {
 public:
  /// u = R(2 s) X − X of the defaults started by initialState() [m] (the published reference; two
  /// independent integrations, one in quaternions and one in directors, agree to 5e-10).
  static const Eigen::Vector3d kReferenceDisplacement;
  /// The benchmark's initial body-frame angular velocity Ω₀ [rad/s].
  static const Eigen::Vector3d kInitialAngularVelocity;

  /// Throws std::invalid_argument if `params` is invalid.
  explicit HeavyTop(HeavyTopParams params = {});

  std::string name() const override { return "heavy_top"; }
  int nq() const override { return 9; }
  int nc() const override { return 6; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  bool biasDependsOnState() const override { return false; }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;
  bool isConservative() const override { return true; }
  /// m |g| |X| [J]: the potential energy's range is twice this.
  double energyScale() const override;

  const HeavyTopParams& params() const { return params_; }  ///< the parameters it was built with
  /// J̄ = ½ tr(J_O) I − J_O, diagonal [kg m²]: the mass of each director.
  const Eigen::Vector3d& directorInertia() const { return director_inertia_; }
  /// The state at t = 0 with R = `rotation` (orthonormal, det +1) and body-frame angular velocity
  /// `omega_body` [rad/s]. Throws std::invalid_argument for a rotation off by more than 1e-12.
  State initialState(const Eigen::Matrix3d& rotation = Eigen::Matrix3d::Identity(),
                     const Eigen::Vector3d& omega_body = kInitialAngularVelocity) const;
  /// R(q), the directors as columns.
  static Eigen::Matrix3d rotation(ConstVectorRef q);
  /// The centre of mass's displacement R X − X from the body frame's start R = I [m].
  Eigen::Vector3d displacement(ConstVectorRef q) const;

 private:
  HeavyTopParams params_;
  Eigen::Vector3d director_inertia_;
};

}  // namespace kktdae

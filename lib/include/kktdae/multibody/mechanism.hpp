#pragma once
/// @file
/// A mechanism of rigid bodies and joints in maximal coordinates, as an ordinary
/// ConstrainedSystem (built by MechanismBuilder, mechanism_builder.hpp; docs/multibody.md).
///
/// q stacks the bodies' coordinates in the order they were added (body.hpp); φ stacks each
/// spatial body's six orthonormality rows, then each joint's rows (joint.hpp) in the order the
/// joints were added, then one row per driver. M is constant and diagonal; h holds gravity,
/// springs and dampers (M q̈ + h = Sᵀu + Jᵀλ); S maps each actuator's input to its joint. J is
/// sparse: a row touches only the coordinates of the bodies it joins.

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/multibody/body.hpp"
#include "kktdae/multibody/joint.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::multibody {

namespace detail {
struct MechanismData;
}

/// What joint A–B exerts on body B through its rows: a force and a moment about B's joint
/// origin, both in B's joint frame (its x, y, z axes at the state) [N, N m].
struct JointReaction {
  Eigen::Vector3d force = Eigen::Vector3d::Zero();  ///< force on B [N]
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();  ///< moment on B about its joint origin [N m]
};

/// A mechanism of bodies and joints as a ConstrainedSystem (this file's description), with its
/// structure (bodies, joints, rows) and the outputs a user reads from a state: point positions,
/// rotations, joint coordinates and reactions.
class Mechanism final : public ConstrainedSystem {
 public:
  /// Built by MechanismBuilder::build(); the data is shared and immutable.
  explicit Mechanism(std::shared_ptr<const detail::MechanismData> data);

  std::string name() const override;
  int nq() const override;
  int nc() const override;
  int nu() const override;
  /// ConstantDiagonal, or General when a free spatial body is flat (a zero J̄ₖ: body.hpp).
  MassStructure massStructure() const override;
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void massMatrix(ConstVectorRef q, MatrixRef M) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  bool biasDependsOnState() const override;
  void inputMap(ConstVectorRef q, double t, MatrixRef S) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  int jacobianNonZeros() const override;
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override;
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override;
  bool isTimeDependent() const override;
  /// True when only gravity and springs act (no damper, driver or constant torque).
  bool isConservative() const override;
  /// Σ m|g|ℓ over the bodies (ℓ the largest distance from a body's centre of mass to its joint
  /// and spring points) plus Σ ½ k ℓ₀² over the springs [J]; 0 when that is 0.
  double energyScale() const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;

  // --- structure ---------------------------------------------------------------------------
  /// Number of bodies, the ground not counted.
  int bodyCount() const;
  /// Throws std::invalid_argument for an unknown name (the ground is "ground", index −1).
  int bodyIndex(const std::string& name) const;
  /// The name the body was added under.
  const std::string& bodyName(int body) const;
  /// Planar, spatial or pivoted, as added (body.hpp).
  BodyKind bodyKind(int body) const;
  /// Index of the body's first coordinate in q.
  int bodyOffset(int body) const;
  /// Number of joints added (a driver or an actuator belongs to its joint).
  int jointCount() const;
  /// Index of the joint named `name`; throws std::invalid_argument for an unknown name.
  int jointIndex(const std::string& name) const;
  /// The name the joint was added under.
  const std::string& jointName(int joint) const;
  /// The joint's kind (joint.hpp).
  JointKind jointKind(int joint) const;
  /// The joint's rows of φ (and entries of λ): first and count. A driven joint's driver row is
  /// reported by driverRow().
  int jointFirstRow(int joint) const;
  /// Number of the joint's rows (the driver row not counted).
  int jointRowCount(int joint) const;
  /// The driver row of a driven joint, −1 if it has none: its λ is the driving force or torque.
  int driverRow(int joint) const;

  // --- configuration and outputs -----------------------------------------------------------
  /// The configuration of the poses given to the builder (not assembled: assembly.hpp).
  const Vector& builtConfiguration() const;
  /// Position in space of a point given in the body's own frame [m] (the ground: the point).
  Eigen::Vector3d pointPosition(int body, const Eigen::Vector3d& point, ConstVectorRef q) const;
  /// Rotation from the body's own frame to space (planar: about z).
  Eigen::Matrix3d rotation(int body, ConstVectorRef q) const;
  /// Angular velocity in space [rad/s] (planar: (0, 0, θ̇); directors: ½ Σ dₖ × ḋₖ).
  Eigen::Vector3d angularVelocity(int body, ConstVectorRef q, ConstVectorRef v) const;
  /// Writes into v the body's coordinates' rates for a given velocity of the body-frame point
  /// `point` [m/s] and angular velocity in space `omega` [rad/s] (planar: only x, y of the
  /// velocity and z of omega; pivoted: the velocity is ignored). Sizes: q, v nq.
  void setBodyVelocity(int body, const Eigen::Vector3d& point, const Eigen::Vector3d& velocity,
                       const Eigen::Vector3d& omega, ConstVectorRef q, VectorRef v) const;
  /// The joint's read-back coordinates (joint.hpp's table: revolute angle [rad], slide [m],
  /// cylindrical (slide, angle); empty for the other kinds). Sizes: q nq.
  Vector jointCoordinates(int joint, ConstVectorRef q) const;
  /// Their rates. Sizes: q, v nq.
  Vector jointRates(int joint, ConstVectorRef q, ConstVectorRef v) const;
  /// What the joint exerts on its body B, from λ (JointReaction). Sizes: q nq; lambda nc.
  JointReaction reaction(int joint, ConstVectorRef q, ConstVectorRef lambda) const;

  /// The built data, for the library's own code (assembly, the Python bindings); not a stable
  /// interface.
  const detail::MechanismData& data() const { return *data_; }

 private:
  std::shared_ptr<const detail::MechanismData> data_;
};

}  // namespace kktdae::multibody

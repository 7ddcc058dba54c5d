#pragma once
/// @file
/// Describing a mechanism as bodies, joints, drivers and force elements; build() gives the
/// Mechanism (mechanism.hpp). docs/multibody.md walks through an example.

#include <Eigen/Core>
#include <memory>
#include <string>

#include "kktdae/multibody/body.hpp"
#include "kktdae/multibody/joint.hpp"
#include "kktdae/multibody/mechanism.hpp"

namespace kktdae::multibody {

namespace detail {
struct MechanismData;
}

/// Collects a mechanism's description. Every add* validates what it is given and throws
/// std::invalid_argument naming the field and value (an unknown body, a duplicate name, a
/// planar-only joint between spatial bodies, ...). Body indices start at 0; kGround is the
/// fixed frame.
class MechanismBuilder {
 public:
  static constexpr int kGround = -1;  ///< the body index of the fixed frame

  /// An empty mechanism called `name` (not empty; the name() of what build() gives).
  explicit MechanismBuilder(std::string name);
  ~MechanismBuilder();
  MechanismBuilder(const MechanismBuilder&) = delete;
  MechanismBuilder& operator=(const MechanismBuilder&) = delete;

  /// A planar body with its centre of mass at (x, y) and turned by `angle` [rad]. Its own frame
  /// has its origin at the centre of mass. Returns its index.
  int addPlanarBody(const std::string& name, const PlanarBodyParams& params, double x, double y, double angle);
  /// A free spatial body whose own frame sits at `position` with `rotation` (orthonormal,
  /// det +1). Returns its index.
  int addSpatialBody(const std::string& name, const SpatialBodyParams& params, const Eigen::Vector3d& position,
                     const Eigen::Matrix3d& rotation);
  /// A spatial body turning about a point fixed in space: `pivot` in the body's frame sits at
  /// `pivot_in_space`; the body's frame is turned by `rotation`. Returns its index.
  int addPivotedBody(const std::string& name, const SpatialBodyParams& params, const Eigen::Vector3d& pivot,
                     const Eigen::Vector3d& pivot_in_space, const Eigen::Matrix3d& rotation);

  /// A joint between body_a and body_b (either may be kGround, not both; not the same body) at
  /// frames given in each body's own frame (joint.hpp). `length` is the distance joint's L > 0
  /// (ignored by the other kinds). Returns its index.
  int addJoint(const std::string& name, JointKind kind, int body_a, const Frame& frame_a, int body_b,
               const Frame& frame_b, double length = 0.0);
  /// Prescribes the joint's read-back coordinate (revolute between planar bodies, prismatic,
  /// point_on_line, cylindrical's slide): one rheonomic row s(q) − s(t), whose λ is the driving
  /// torque or force. At most one driver per joint.
  void drive(int joint, const JointMotion& motion);

  /// Uniform gravity [m/s²] on every body (default 0).
  void setGravity(const Eigen::Vector3d& gravity);
  /// A spring–damper between two body points (kGround allowed): force k(ℓ − ℓ₀) + c ℓ̇ along
  /// the line, pulling when stretched. stiffness, damping ≥ 0; rest_length ≥ 0; ℓ must stay > 0.
  void addSpring(const std::string& name, int body_a, const Eigen::Vector3d& point_a, int body_b,
                 const Eigen::Vector3d& point_b, double stiffness, double damping, double rest_length);
  /// A torque τ = −k(θ − θ₀) − c θ̇ + τ₀ about a revolute joint between planar bodies (θ its
  /// read-back angle), acting on B and, reversed, on A.
  void addRotationalSpring(const std::string& name, int joint, double stiffness, double damping, double rest_angle,
                           double constant_torque = 0.0);
  /// An actuator on a joint between planar bodies: input u is the torque about a revolute joint
  /// or the force along a prismatic one (on B, reversed on A). Returns the input's index.
  int addActuator(const std::string& name, int joint);

  /// The mechanism. Throws std::invalid_argument when it has no body.
  Mechanism build() const;

 private:
  std::shared_ptr<detail::MechanismData> data_;
};

}  // namespace kktdae::multibody

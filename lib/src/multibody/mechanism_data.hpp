#pragma once
// What a Mechanism is made of (internal header): bodies with their mass and frames, rows of φ
// as primitives over attachments, force elements. Built once by MechanismBuilder, then read only.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "kktdae/core/types.hpp"
#include "kktdae/multibody/body.hpp"
#include "kktdae/multibody/joint.hpp"

namespace kktdae::multibody::detail {

struct BodyData {
  std::string name;
  BodyKind kind = BodyKind::Planar;
  int offset = 0;  ///< first coordinate in q
  double mass = 0.0;
  /// Planar: (I, 0, 0); spatial and pivoted: J̄ of the principal axes (about the centre of mass
  /// or the pivot).
  Eigen::Vector3d inertia = Eigen::Vector3d::Zero();
  /// The user's body frame → the coordinate frame: X_coord = axesᵀ (X_user − origin). The
  /// coordinate frame sits at the centre of mass (planar, spatial) or the pivot, with principal
  /// axes (spatial, pivoted).
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  Eigen::Vector3d centre_of_mass = Eigen::Vector3d::Zero();  ///< in the coordinate frame
  Eigen::Vector3d pivot = Eigen::Vector3d::Zero();           ///< pivoted: the fixed point in space
  double reach = 0.0;  ///< largest distance from the centre of mass to a joint or spring point [m]

  /// A point or direction of the user's body frame in the coordinate frame.
  Eigen::Vector3d pointToCoordinates(const Eigen::Vector3d& user) const { return axes.transpose() * (user - origin); }
  Eigen::Vector3d vectorToCoordinates(const Eigen::Vector3d& user) const { return axes.transpose() * user; }
};

/// A point or a direction fixed in a body (body −1: the ground, `local` in space), in the
/// body's coordinate frame.
struct Attachment {
  int body = -1;
  Eigen::Vector3d local = Eigen::Vector3d::Zero();
  bool direction = false;
};

/// The primitive rows every joint is made of (p, p' points; u, w directions; d = p' − p).
enum class RowKind {
  Component,     ///< e·(p' − p) with e a fixed unit vector in space
  Dot,           ///< u·w − c
  Offset,        ///< u·(p' − p) − c (u on body A, with p)
  Distance,      ///< ½(|p' − p|² − c²)
  Angle,         ///< θ_B − θ_A − c (planar bodies)
};

struct RowData {
  RowKind kind = RowKind::Component;
  int joint = -1;           ///< −1: a body's orthonormality row (not stored as RowData)
  int body_a = -1, body_b = -1;
  Attachment p, p_prime, u, w;
  Eigen::Vector3d axis = Eigen::Vector3d::Zero();  ///< Component's e
  double target = 0.0;      ///< c
  int motion = -1;          ///< index into drivers' motions: c = s(t)
};

struct JointData {
  std::string name;
  JointKind kind = JointKind::Spherical;
  int body_a = -1, body_b = -1;
  bool planar = false;
  Frame frame_a, frame_b;   ///< in the coordinate frames (origin and axes)
  double length = 0.0;
  int first_row = 0, row_count = 0;  ///< in φ (the builder counts in `rows` until build())
  int driver_row = -1;                ///< in φ, −1 when not driven
  /// The read-back coordinate as a row (planar revolute: Angle; slides: Offset along the
  /// joint's axis), what drivers, actuators and rotational springs act through; kind unused
  /// (has_readback false) for the joints without one.
  bool has_readback = false;
  RowData readback;
};

struct SpringData {
  std::string name;
  Attachment a, b;
  double stiffness = 0.0, damping = 0.0, rest_length = 0.0;
};

struct RotationalSpringData {
  std::string name;
  int joint = -1;
  double stiffness = 0.0, damping = 0.0, rest_angle = 0.0, constant_torque = 0.0;
};

struct ActuatorData {
  std::string name;
  int joint = -1;
};

struct MechanismData {
  std::string name;
  std::vector<BodyData> bodies;
  std::vector<JointData> joints;
  std::vector<RowData> rows;  ///< the joint and driver rows, after the bodies' orthonormality rows
  std::vector<JointMotion> motions;
  std::vector<SpringData> springs;
  std::vector<RotationalSpringData> rotational_springs;
  std::vector<ActuatorData> actuators;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  int nq = 0;
  int orthonormality_rows = 0;  ///< 6 per spatial or pivoted body, first in φ
  Vector configuration;         ///< q of the poses given to the builder
  Vector mass_diagonal;
  bool flat_body = false;       ///< some J̄ₖ = 0: M declared General
  IndexVector pattern_rows, pattern_cols;

  int nc() const { return orthonormality_rows + static_cast<int>(rows.size()); }
};

}  // namespace kktdae::multibody::detail

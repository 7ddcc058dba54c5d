#pragma once
/// @file
/// Joints of a Mechanism: each one a set of rows of φ between two bodies (docs/multibody.md has
/// the rows of every kind).

#include <Eigen/Core>
#include <string>
#include <string_view>

namespace kktdae::multibody {

/// What a joint leaves free between its two frames. The spatial rows (frames F_A on body A and
/// F_B on body B, origins a and b, axes x, y, z; d = b − a):
///
///   kind           rows                                              count  read back
///   spherical      a = b                                             3      —
///   revolute       a = b, z_A·x_B = z_A·y_B = 0                      5      angle about z_A
///   universal      a = b, z_A·z_B = 0                                4      —
///   cylindrical    x_A·d = y_A·d = 0, z_A·x_B = z_A·y_B = 0          4      slide along z_A, angle
///   prismatic      cylindrical's rows and x_A·y_B = 0                5      slide along z_A
///   planar         z_A·d = 0, z_A·x_B = z_A·y_B = 0                  3      —
///   fixed          a = b, z_A·x_B = z_A·y_B = x_A·y_B = 0            6      —
///   point_on_line  x_A·d = y_A·d = 0 (b on the line a + s z_A)       2      slide along z_A
///   distance       ½(|d|² − L²) = 0                                  1      —
///
/// Between planar bodies (the ground counts as planar) only the planar rows: revolute a = b (2,
/// angle θ_B − θ_A read back), prismatic y_A·d = 0 and θ_B − θ_A = θ₀ (2, slide along x_A),
/// fixed (3), point_on_line y_A·d = 0 (1), distance (1); the other kinds are refused.
enum class JointKind { Spherical, Revolute, Universal, Cylindrical, Prismatic, Planar, Fixed, PointOnLine, Distance };

/// "spherical", "revolute", "universal", "cylindrical", "prismatic", "planar", "fixed",
/// "point_on_line", "distance".
std::string_view toString(JointKind kind);
/// Parses a name of toString(); throws std::invalid_argument listing the choices otherwise.
JointKind parseJointKind(std::string_view name);

/// A frame fixed in a body, in that body's frame: origin and rotation (columns x, y, z). For a
/// planar body only origin.x(), origin.y() and the angle of the rotation about z count.
struct Frame {
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();        ///< in the body's frame [m]
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  ///< the frame's axes in the body's frame
  /// A frame at `origin` with the body's axes.
  static Frame at(const Eigen::Vector3d& origin);
  /// A frame at `origin` whose z axis is `axis` (normalized; x, y completed deterministically).
  static Frame alongZ(const Eigen::Vector3d& origin, const Eigen::Vector3d& axis);
  /// A planar frame at (x, y) turned by `angle` [rad] about z.
  static Frame planar(double x, double y, double angle = 0.0);
};

/// Ways a joint's motion can be prescribed (a driver): its read-back coordinate follows
/// position(t), with velocity(t) and acceleration(t) its exact derivatives.
struct JointMotion {
  double (*position)(double t, const double* p) = nullptr;      ///< s(t), p = parameters
  double (*velocity)(double t, const double* p) = nullptr;      ///< ṡ(t), p = parameters
  double (*acceleration)(double t, const double* p) = nullptr;  ///< s̈(t), p = parameters
  double parameters[4] = {0.0, 0.0, 0.0, 0.0};  ///< the motion's constants, as its factory set them
  /// s(t) = s₀ + ṡ t + ½ s̈ t² (a constant speed when s̈ = 0).
  static JointMotion polynomial(double s0, double rate, double acceleration = 0.0);
  /// s(t) = s₀ + A sin(ω t).
  static JointMotion sinusoid(double s0, double amplitude, double omega);
};

}  // namespace kktdae::multibody

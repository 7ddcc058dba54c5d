#include "kktdae/multibody/joint.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae::multibody {

namespace {
constexpr JointKind kAllKinds[] = {JointKind::Spherical,   JointKind::Revolute,  JointKind::Universal,
                                   JointKind::Cylindrical, JointKind::Prismatic, JointKind::Planar,
                                   JointKind::Fixed,       JointKind::PointOnLine, JointKind::Distance};
}

std::string_view toString(JointKind kind) {
  switch (kind) {
    case JointKind::Spherical: return "spherical";
    case JointKind::Revolute: return "revolute";
    case JointKind::Universal: return "universal";
    case JointKind::Cylindrical: return "cylindrical";
    case JointKind::Prismatic: return "prismatic";
    case JointKind::Planar: return "planar";
    case JointKind::Fixed: return "fixed";
    case JointKind::PointOnLine: return "point_on_line";
    case JointKind::Distance: return "distance";
  }
  return "unknown";
}

JointKind parseJointKind(std::string_view name) {
  std::string choices;
  for (JointKind kind : kAllKinds) {
    if (toString(kind) == name) return kind;
    choices += (choices.empty() ? "" : ", ") + std::string(toString(kind));
  }
  throwInvalid("joint kind", "unknown name '" + std::string(name) + "' (choices: " + choices + ")");
}

Frame Frame::at(const Eigen::Vector3d& origin) { return Frame{origin, Eigen::Matrix3d::Identity()}; }

Frame Frame::alongZ(const Eigen::Vector3d& origin, const Eigen::Vector3d& axis) {
  const double norm = axis.norm();
  if (!(norm > 0.0) || !std::isfinite(norm)) throwInvalid("axis", "must be a finite non-zero vector");
  const Eigen::Vector3d z = axis / norm;
  // x: the unit axis least aligned with z, made orthogonal to it; y = z × x.
  Eigen::Index least = 0;
  z.cwiseAbs().minCoeff(&least);
  Eigen::Vector3d x = Eigen::Vector3d::Unit(least) - z[least] * z;
  x.normalize();
  Frame frame;
  frame.origin = origin;
  frame.rotation.col(0) = x;
  frame.rotation.col(1) = z.cross(x);
  frame.rotation.col(2) = z;
  return frame;
}

Frame Frame::planar(double x, double y, double angle) {
  Frame frame;
  frame.origin = Eigen::Vector3d(x, y, 0.0);
  const double c = std::cos(angle), s = std::sin(angle);
  frame.rotation << c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0;
  return frame;
}

namespace {
double polynomialPosition(double t, const double* p) { return p[0] + p[1] * t + 0.5 * p[2] * t * t; }
double polynomialVelocity(double t, const double* p) { return p[1] + p[2] * t; }
double polynomialAcceleration(double, const double* p) { return p[2]; }
double sinusoidPosition(double t, const double* p) { return p[0] + p[1] * std::sin(p[2] * t); }
double sinusoidVelocity(double t, const double* p) { return p[1] * p[2] * std::cos(p[2] * t); }
double sinusoidAcceleration(double t, const double* p) { return -p[1] * p[2] * p[2] * std::sin(p[2] * t); }
}  // namespace

JointMotion JointMotion::polynomial(double s0, double rate, double acceleration) {
  JointMotion m;
  m.position = polynomialPosition;
  m.velocity = polynomialVelocity;
  m.acceleration = polynomialAcceleration;
  m.parameters[0] = s0;
  m.parameters[1] = rate;
  m.parameters[2] = acceleration;
  return m;
}

JointMotion JointMotion::sinusoid(double s0, double amplitude, double omega) {
  JointMotion m;
  m.position = sinusoidPosition;
  m.velocity = sinusoidVelocity;
  m.acceleration = sinusoidAcceleration;
  m.parameters[0] = s0;
  m.parameters[1] = amplitude;
  m.parameters[2] = omega;
  return m;
}

}  // namespace kktdae::multibody

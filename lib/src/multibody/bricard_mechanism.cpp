#include "kktdae/multibody/bricard_mechanism.hpp"

#include <Eigen/Geometry>

#include "kktdae/core/checks.hpp"
#include "kktdae/multibody/mechanism_builder.hpp"

namespace kktdae::multibody {

void BricardParams::validate() const {
  requirePositive("length", length);
  requirePositive("mass", mass);
  requirePositive("radius", radius);
  requireFinite("gravity", gravity);
}

Mechanism bricardMechanism(const BricardParams& p) {
  p.validate();
  const double L = p.length;
  // The hexagon's corners; bar k runs from corner k to corner k + 1, the ground from corner 5
  // back to corner 0.
  const Eigen::Vector3d corner[6] = {{0, 0, 0}, {L, 0, 0}, {L, L, 0}, {L, L, L}, {0, L, L}, {0, 0, L}};
  MechanismBuilder builder("bricard");
  builder.setGravity(p.gravity);
  int bar[5];
  for (int k = 0; k < 5; ++k) {
    const Eigen::Vector3d edge = corner[k + 1] - corner[k];
    const Eigen::Vector3d e = edge / L;
    SpatialBodyParams body;
    body.mass = p.mass;
    body.centre_of_mass = 0.5 * edge;  // the body frame: at corner k with the space axes
    const double axial = 0.5 * p.mass * p.radius * p.radius;
    const double transverse = p.mass * (3.0 * p.radius * p.radius + L * L) / 12.0;
    body.inertia = transverse * Eigen::Matrix3d::Identity() + (axial - transverse) * e * e.transpose();
    bar[k] = builder.addSpatialBody("bar" + std::to_string(k + 1), body, corner[k], Eigen::Matrix3d::Identity());
  }
  // The joint at corner k joins the edge arriving there to the edge leaving it; its axis is
  // normal to both.
  for (int k = 0; k < 6; ++k) {
    const int before = k == 0 ? MechanismBuilder::kGround : bar[k - 1];
    const int after = k == 5 ? MechanismBuilder::kGround : bar[k];
    const Eigen::Vector3d incoming = corner[k] - corner[(k + 5) % 6];
    const Eigen::Vector3d outgoing = corner[(k + 1) % 6] - corner[k];
    const Eigen::Vector3d axis = incoming.cross(outgoing);
    // Frames in each body's own frame: a bar's frame sits at its first corner.
    const Eigen::Vector3d on_before = before < 0 ? corner[k] : corner[k] - corner[k - 1];
    const Eigen::Vector3d on_after = after < 0 ? corner[k] : Eigen::Vector3d::Zero();
    builder.addJoint("R" + std::to_string(k + 1), JointKind::Revolute, before, Frame::alongZ(on_before, axis), after,
                     Frame::alongZ(on_after, axis));
  }
  return builder.build();
}

}  // namespace kktdae::multibody

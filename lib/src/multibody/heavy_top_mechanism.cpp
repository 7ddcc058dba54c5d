#include "kktdae/multibody/heavy_top_mechanism.hpp"

#include "kktdae/multibody/mechanism_builder.hpp"

namespace kktdae::multibody {

Mechanism heavyTopMechanism(const HeavyTopParams& params) {
  params.validate();
  MechanismBuilder builder("heavy_top_bodies");
  SpatialBodyParams body;
  body.mass = params.mass;
  body.centre_of_mass = params.centre_of_mass;
  body.inertia = params.inertia_centre.asDiagonal();
  builder.addPivotedBody("top", body, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity());
  builder.setGravity(params.gravity);
  return builder.build();
}

State heavyTopMechanismStart(const Mechanism& top, const Eigen::Vector3d& omega_body) {
  State state;
  state.q = top.builtConfiguration();
  state.v = Vector::Zero(top.nq());
  const Eigen::Vector3d omega = top.rotation(0, state.q) * omega_body;
  top.setBodyVelocity(0, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), omega, state.q, state.v);
  return state;
}

Eigen::Vector3d heavyTopDisplacement(const Mechanism& top, const HeavyTopParams& params, ConstVectorRef q) {
  return top.pointPosition(0, params.centre_of_mass, q) - params.centre_of_mass;
}

}  // namespace kktdae::multibody

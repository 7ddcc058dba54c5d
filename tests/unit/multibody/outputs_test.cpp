// What a user reads back: joint reactions against statics, a driver's λ against the power it
// puts in (dE/dt = λ ṡ), joint coordinates and rates against the motion, and an actuator's S.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <cmath>

#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/multibody/mechanism_builder.hpp"
#include "kktdae/simulate/simulate.hpp"

using namespace kktdae;
using namespace kktdae::multibody;

namespace {

KktWorkspace solveAt(const Mechanism& m, const State& s, KktResult& result) {
  KktOptions options;
  KktWorkspace ws(m, options);
  result = solveAccelerations(m, s.t, s.q, s.v, Vector::Zero(m.nu()), Stabilization::none(), options, ws);
  return ws;
}

}  // namespace

TEST_CASE("multibody outputs: a body welded to the ground feels its weight and the weight's moment", "[multibody][outputs]") {
  // A 2 kg body whose centre of mass sits 0.5 m along x from a fixed joint at the origin, gravity
  // along −z: the joint pushes up with m g and holds the moment −c × m g = (0, −0.5 m g, 0).
  MechanismBuilder builder("cantilever");
  SpatialBodyParams body;
  body.mass = 2.0;
  body.centre_of_mass = Eigen::Vector3d(0.5, 0.0, 0.0);
  body.inertia = Eigen::Vector3d(0.01, 0.05, 0.05).asDiagonal();
  const int b = builder.addSpatialBody("beam", body, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity());
  const int weld = builder.addJoint("weld", JointKind::Fixed, MechanismBuilder::kGround, Frame{}, b, Frame{});
  builder.setGravity(Eigen::Vector3d(0.0, 0.0, -9.81));
  const Mechanism m = builder.build();
  const State rest{0.0, m.builtConfiguration(), Vector::Zero(m.nq())};
  KktResult result;
  const KktWorkspace ws = solveAt(m, rest, result);
  REQUIRE(result.ok());
  CHECK(ws.qdd.lpNorm<Eigen::Infinity>() < 1e-12);
  const JointReaction r = m.reaction(weld, rest.q, ws.lambda);
  CHECK((r.force - Eigen::Vector3d(0.0, 0.0, 2.0 * 9.81)).norm() < 1e-12);
  CHECK((r.moment - Eigen::Vector3d(0.0, -0.5 * 2.0 * 9.81, 0.0)).norm() < 1e-12);
}

TEST_CASE("multibody outputs: a driver's lambda is the torque that does the work, dE/dt = lambda s'", "[multibody][outputs]") {
  // A slider–crank in the vertical plane: crank driven at s(t) = 0.3 + 4 t + t², coupler,
  // slider on a horizontal prismatic joint. The energy it gains is the driver's work.
  MechanismBuilder builder("slider_crank");
  builder.setGravity(Eigen::Vector3d(0.0, -9.81, 0.0));
  const double r = 0.2, l = 0.6, a0 = 0.3;
  const Eigen::Vector2d pin(r * std::cos(a0), r * std::sin(a0));
  const double slider_x = pin.x() + std::sqrt(l * l - pin.y() * pin.y());
  const double b0 = std::atan2(-pin.y(), slider_x - pin.x());
  const int crank = builder.addPlanarBody("crank", {1.0, 0.02}, 0.5 * pin.x(), 0.5 * pin.y(), a0);
  const int rod = builder.addPlanarBody("rod", {0.5, 0.03}, 0.5 * (pin.x() + slider_x), 0.5 * pin.y(), b0);
  const int slider = builder.addPlanarBody("slider", {2.0, 0.01}, slider_x, 0.0, 0.0);
  const int motor = builder.addJoint("motor", JointKind::Revolute, MechanismBuilder::kGround, Frame::planar(0, 0), crank,
                                     Frame::planar(-0.5 * r, 0.0));
  builder.addJoint("pin", JointKind::Revolute, crank, Frame::planar(0.5 * r, 0.0), rod, Frame::planar(-0.5 * l, 0.0));
  builder.addJoint("wrist", JointKind::Revolute, rod, Frame::planar(0.5 * l, 0.0), slider, Frame::planar(0.0, 0.0));
  const int guide = builder.addJoint("guide", JointKind::Prismatic, MechanismBuilder::kGround, Frame::planar(0, 0),
                                     slider, Frame::planar(0, 0));
  builder.drive(motor, JointMotion::polynomial(a0, 4.0, 2.0));
  const Mechanism m = builder.build();
  REQUIRE(m.nq() == 9);
  REQUIRE(m.nc() == 9);  // 2 + 2 + 2 + 2 joint rows and the driver: no freedom left
  CHECK(m.isTimeDependent());
  CHECK_FALSE(m.isConservative());
  // At rest at t = 0 the motion starts with ṡ = 4: v from J v = −∂φ/∂t.
  State start{0.0, m.builtConfiguration(), Vector::Zero(m.nq())};
  Matrix J(m.nc(), m.nq());
  Vector phi_t(m.nc());
  m.constraintJacobian(start.q, 0.0, J);
  m.constraintTimeDerivative(start.q, 0.0, phi_t);
  start.v = J.fullPivLu().solve(-phi_t);
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-4;
  options.end_time = 0.5;
  double work = 0.0, last_power = 0.0, last_t = 0.0;
  bool first = true;
  const int row = m.driverRow(motor);
  REQUIRE(row == 8);
  State last;
  const Summary summary = simulate(m, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
    const double power = lambda[row] * (4.0 + 2.0 * t);  // λ ṡ(t)
    if (!first) work += 0.5 * (power + last_power) * (t - last_t);  // trapezoid
    first = false;
    last_power = power;
    last_t = t;
    last = State{t, q, v};
    // The read-back follows the driver.
    CHECK(m.jointCoordinates(motor, q)[0] == Approx(a0 + 4.0 * t + t * t).margin(1e-9));
    CHECK(m.jointRates(motor, q, v)[0] == Approx(4.0 + 2.0 * t).margin(1e-9));
  });
  INFO(summary.briefReport());
  REQUIRE(summary.ok());
  const double gained = m.totalEnergy(last.q, last.v, last.t) - m.totalEnergy(start.q, start.v, 0.0);
  INFO("energy gained " << gained << " J, driver's work " << work << " J");
  CHECK(std::abs(gained) > 0.1);  // the motion does work: the check below is not 0 = 0
  CHECK(work == Approx(gained).epsilon(1e-6));
  // The slide reads back the slider's x from the guide's frame.
  CHECK(m.jointCoordinates(guide, last.q)[0] == Approx(last.q[m.bodyOffset(slider)]).margin(1e-12));
}

TEST_CASE("multibody outputs: a spatial revolute joint reads back its angle and rate", "[multibody][outputs]") {
  MechanismBuilder builder("door");
  SpatialBodyParams body;
  body.centre_of_mass = Eigen::Vector3d(0.4, 0.0, 0.0);
  body.inertia = Eigen::Vector3d(0.1, 0.2, 0.25).asDiagonal();
  const Eigen::Vector3d hinge_point(0.1, 0.2, 0.3);
  const Eigen::Vector3d axis = Eigen::Vector3d(1.0, 2.0, 2.0).normalized();
  // The door's own frame sits at the hinge with the space axes: the same frame on both sides.
  const int door = builder.addSpatialBody("door", body, hinge_point, Eigen::Matrix3d::Identity());
  const int hinge = builder.addJoint("hinge", JointKind::Revolute, MechanismBuilder::kGround,
                                     Frame::alongZ(hinge_point, axis), door, Frame::alongZ(Eigen::Vector3d::Zero(), axis));
  const Mechanism m = builder.build();
  // Turn the door by `angle` about the hinge: its centre of mass and its directors.
  const double angle = 0.7, rate = -1.3;
  const Eigen::Matrix3d turn = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  Vector q = m.builtConfiguration();
  const int o = m.bodyOffset(door);
  q.segment<3>(o) = hinge_point + turn * (Eigen::Vector3d(q.segment<3>(o)) - hinge_point);
  for (int k = 0; k < 3; ++k) q.segment<3>(o + 3 + 3 * k) = turn * Eigen::Vector3d(q.segment<3>(o + 3 + 3 * k));
  Vector phi(m.nc());
  m.constraint(q, 0.0, phi);
  CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-14);
  CHECK(m.jointCoordinates(hinge, q)[0] == Approx(angle).epsilon(1e-14));
  Vector v = Vector::Zero(m.nq());
  m.setBodyVelocity(door, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), rate * axis, q, v);
  CHECK(m.jointRates(hinge, q, v)[0] == Approx(rate).epsilon(1e-14));
  CHECK((m.angularVelocity(door, q, v) - rate * axis).norm() < 1e-14);
  // Velocity on the manifold: the hinge point stays put, J q̇ = 0.
  Matrix J(m.nc(), m.nq());
  m.constraintJacobian(q, 0.0, J);
  CHECK((J * v).lpNorm<Eigen::Infinity>() < 1e-14);
}

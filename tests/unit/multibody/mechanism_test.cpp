// Mechanisms from bodies and joints: every joint kind's rows, J, γ, ∂φ/∂t and the sparse pattern
// pass checkModel at random states (off the manifold too), with gravity and springs in h; bad
// descriptions throw naming the field.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <random>

#include "kktdae/multibody/mechanism_builder.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using namespace kktdae::multibody;

namespace {

Eigen::Matrix3d randomRotation(std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  return Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized().toRotationMatrix();
}

SpatialBodyParams unevenBody(double mass) {
  SpatialBodyParams p;
  p.mass = mass;
  p.centre_of_mass = Eigen::Vector3d(0.1, -0.2, 0.05);
  // Not diagonal: the builder turns it to principal axes.
  p.inertia << 0.3, 0.02, -0.01, 0.02, 0.25, 0.03, -0.01, 0.03, 0.2;
  return p;
}

/// Random states near the built configuration (off the manifold by `spread`) with random rates.
std::vector<State> randomStates(const Mechanism& m, std::mt19937_64& rng, double spread) {
  std::vector<State> states;
  for (int s = 0; s < 3; ++s) {
    State state;
    state.t = 0.3 * s;
    state.q = m.builtConfiguration() + testing::randomVector(rng, m.nq(), spread);
    state.v = testing::randomVector(rng, m.nq(), 2.0);
    states.push_back(state);
  }
  return states;
}

void requireCheckModelPasses(const Mechanism& m, std::mt19937_64& rng) {
  ModelCheckOptions options;
  options.check_conservative_bias = true;
  const ModelCheckReport report = checkModel(m, randomStates(m, rng, 0.05), options);
  INFO(m.name() << ": " << report.describe());
  CHECK(report.ok());
}

constexpr JointKind kSpatialKinds[] = {JointKind::Spherical,   JointKind::Revolute,  JointKind::Universal,
                                       JointKind::Cylindrical, JointKind::Prismatic, JointKind::Planar,
                                       JointKind::Fixed,       JointKind::PointOnLine, JointKind::Distance};

}  // namespace

TEST_CASE("multibody: every spatial joint between two free bodies and to the ground passes checkModel", "[multibody]") {
  std::mt19937_64 rng(4502);
  for (JointKind kind : kSpatialKinds) {
    for (bool to_ground : {false, true}) {
      MechanismBuilder builder(std::string(toString(kind)) + (to_ground ? "_ground" : "_pair"));
      builder.setGravity(Eigen::Vector3d(0.3, -9.81, 0.5));
      const int a = to_ground ? MechanismBuilder::kGround
                              : builder.addSpatialBody("a", unevenBody(2.0), Eigen::Vector3d(0.1, 0.2, 0.3), randomRotation(rng));
      const int b = builder.addSpatialBody("b", unevenBody(1.5), Eigen::Vector3d(-0.4, 0.1, 0.2), randomRotation(rng));
      const Frame fa = Frame::alongZ(Eigen::Vector3d(0.2, 0.1, -0.3), Eigen::Vector3d(1.0, 2.0, 0.5));
      const Frame fb = Frame::alongZ(Eigen::Vector3d(-0.1, 0.3, 0.2), Eigen::Vector3d(0.3, -1.0, 2.0));
      const int joint = builder.addJoint("j", kind, a, fa, b, fb, 0.7);
      builder.addSpring("s", a, Eigen::Vector3d(0.5, 0.0, 0.1), b, Eigen::Vector3d(0.0, 0.4, -0.2), 30.0, 0.0, 0.2);
      if (kind == JointKind::Prismatic || kind == JointKind::PointOnLine) {
        builder.drive(joint, JointMotion::sinusoid(0.1, 0.2, 3.0));
      }
      const Mechanism m = builder.build();
      CHECK(m.jacobianNonZeros() > 0);
      requireCheckModelPasses(m, rng);
    }
  }
}

TEST_CASE("multibody: pivoted bodies and planar joints pass checkModel", "[multibody]") {
  std::mt19937_64 rng(4503);
  {
    MechanismBuilder builder("pivoted_pair");
    builder.setGravity(Eigen::Vector3d(0.0, 0.0, -9.81));
    const int a = builder.addPivotedBody("a", unevenBody(2.0), Eigen::Vector3d(0.0, 0.0, 0.5),
                                         Eigen::Vector3d(0.1, 0.0, 0.0), randomRotation(rng));
    const int b = builder.addSpatialBody("b", unevenBody(1.0), Eigen::Vector3d(0.3, 0.3, 0.3), randomRotation(rng));
    builder.addJoint("j", JointKind::Universal, a, Frame::alongZ(Eigen::Vector3d(0.3, 0.1, 0.0), Eigen::Vector3d::UnitX()),
                     b, Frame::alongZ(Eigen::Vector3d(0.0, 0.2, 0.1), Eigen::Vector3d::UnitY()));
    requireCheckModelPasses(builder.build(), rng);
  }
  for (JointKind kind : {JointKind::Revolute, JointKind::Prismatic, JointKind::Fixed, JointKind::PointOnLine,
                         JointKind::Distance}) {
    for (bool to_ground : {false, true}) {
      MechanismBuilder builder(std::string("planar_") + std::string(toString(kind)) + (to_ground ? "_ground" : "_pair"));
      builder.setGravity(Eigen::Vector3d(0.0, -9.81, 0.0));
      const int a = to_ground ? MechanismBuilder::kGround : builder.addPlanarBody("a", {2.0, 0.1}, 0.1, 0.2, 0.3);
      const int b = builder.addPlanarBody("b", {1.0, 0.05}, 0.5, -0.1, -0.7);
      const int joint = builder.addJoint("j", kind, a, Frame::planar(0.2, 0.1, 0.4), b, Frame::planar(-0.1, 0.05, -0.2), 0.4);
      builder.addSpring("s", a, Eigen::Vector3d(0.3, 0.0, 0.0), b, Eigen::Vector3d(0.0, 0.2, 0.0), 20.0, 0.0, 0.1);
      if (kind == JointKind::Revolute) {
        builder.addRotationalSpring("r", joint, 5.0, 0.0, 0.3);
        builder.addActuator("motor", joint);
      }
      if (kind == JointKind::Prismatic) builder.drive(joint, JointMotion::polynomial(0.1, 0.5, 0.2));
      requireCheckModelPasses(builder.build(), rng);
    }
  }
}

TEST_CASE("multibody: bad descriptions throw naming the field", "[multibody]") {
  MechanismBuilder builder("bad");
  const int a = builder.addPlanarBody("a", {}, 0.0, 0.0, 0.0);
  const int s = builder.addSpatialBody("s", {}, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity());
  CHECK_THROWS_WITH(builder.addPlanarBody("a", {}, 0.0, 0.0, 0.0), Catch::Contains("name"));
  CHECK_THROWS_WITH(builder.addPlanarBody("m", {-1.0, 1.0}, 0.0, 0.0, 0.0), Catch::Contains("mass"));
  CHECK_THROWS_WITH(builder.addSpatialBody("r", {}, Eigen::Vector3d::Zero(), 2.0 * Eigen::Matrix3d::Identity()),
                    Catch::Contains("rotation"));
  SpatialBodyParams impossible;
  impossible.inertia = Eigen::Vector3d(1.0, 1.0, 3.0).asDiagonal();
  CHECK_THROWS_WITH(builder.addSpatialBody("i", impossible, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity()),
                    Catch::Contains("inertia"));
  CHECK_THROWS_WITH(builder.addJoint("j", JointKind::Spherical, a, Frame{}, MechanismBuilder::kGround, Frame{}),
                    Catch::Contains("planar"));
  CHECK_THROWS_WITH(builder.addJoint("j", JointKind::Revolute, a, Frame{}, s, Frame{}), Catch::Contains("planar"));
  CHECK_THROWS_WITH(builder.addJoint("j", JointKind::Revolute, a, Frame{}, 7, Frame{}), Catch::Contains("body_b"));
  CHECK_THROWS_WITH(builder.addJoint("j", JointKind::Distance, s, Frame{}, MechanismBuilder::kGround, Frame{}, 0.0),
                    Catch::Contains("length"));
  const int fixed = builder.addJoint("f", JointKind::Fixed, a, Frame{}, MechanismBuilder::kGround, Frame{});
  CHECK_THROWS_WITH(builder.drive(fixed, JointMotion::polynomial(0.0, 1.0)), Catch::Contains("joint"));
  CHECK_THROWS_WITH(parseJointKind("hinge"), Catch::Contains("revolute"));
  CHECK_THROWS_WITH(MechanismBuilder("empty").build(), Catch::Contains("bodies"));
}

// ParametricMechanism (parametric_mechanism.hpp): the parameters a built mechanism declares,
// their derivatives against central differences of the mechanism's own terms for planar,
// spatial and pivoted bodies with springs, rotational springs and a driver, and one short
// forward-sensitivity run against central differences of whole runs.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <cmath>
#include <random>

#include "kktdae/multibody/mechanism_builder.hpp"
#include "kktdae/multibody/parametric_mechanism.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using namespace kktdae::multibody;
using Catch::Contains;
using kktdae::testing::randomVector;

namespace {

/// A planar double pendulum from the ground, a spring-damper from the ground to the lower link,
/// a rotational spring-damper with a constant torque at the elbow.
Mechanism planarPendulum() {
  MechanismBuilder builder("planar_pendulum");
  builder.setGravity(Eigen::Vector3d(0.0, -9.81, 0.0));
  const int upper = builder.addPlanarBody("upper", {1.2, 0.08}, 0.25, 0.0, 0.0);
  const int lower = builder.addPlanarBody("lower", {0.8, 0.05}, 0.7, 0.0, 0.0);
  builder.addJoint("shoulder", JointKind::Revolute, MechanismBuilder::kGround, Frame::planar(0.0, 0.0), upper,
                   Frame::planar(-0.25, 0.0));
  const int elbow = builder.addJoint("elbow", JointKind::Revolute, upper, Frame::planar(0.25, 0.0), lower,
                                     Frame::planar(-0.2, 0.0));
  builder.addSpring("strut", MechanismBuilder::kGround, Eigen::Vector3d(0.5, 0.4, 0.0), lower,
                    Eigen::Vector3d(0.1, 0.0, 0.0), 15.0, 0.4, 0.5);
  builder.addRotationalSpring("elbow_spring", elbow, 3.0, 0.2, 0.1, 0.5);
  return builder.build();
}

/// A pivoted body and a free spatial body (inertias not diagonal) joined by a spherical joint, a
/// spring between them, a driven prismatic joint between a second free body and the ground.
Mechanism spatialMechanism() {
  MechanismBuilder builder("spatial_mechanism");
  builder.setGravity(Eigen::Vector3d(0.3, -9.81, 0.5));
  SpatialBodyParams uneven;
  uneven.mass = 2.0;
  uneven.centre_of_mass = Eigen::Vector3d(0.1, -0.2, 0.05);
  uneven.inertia << 0.3, 0.02, -0.01, 0.02, 0.25, 0.03, -0.01, 0.03, 0.2;
  const Eigen::Matrix3d turn = Eigen::AngleAxisd(0.4, Eigen::Vector3d(1.0, 2.0, 0.5).normalized()).toRotationMatrix();
  const int top = builder.addPivotedBody("top", uneven, Eigen::Vector3d(0.0, 0.0, 0.5), Eigen::Vector3d::Zero(), turn);
  const int arm = builder.addSpatialBody("arm", uneven, Eigen::Vector3d(0.3, 0.2, 0.1), turn.transpose());
  builder.addJoint("ball", JointKind::Spherical, top, Frame::at(Eigen::Vector3d(0.2, 0.1, 0.0)), arm,
                   Frame::at(Eigen::Vector3d(-0.1, 0.0, 0.2)));
  const int slider = builder.addSpatialBody("slider", {}, Eigen::Vector3d(1.0, 0.0, 0.0), Eigen::Matrix3d::Identity());
  const int track = builder.addJoint("track", JointKind::Prismatic, MechanismBuilder::kGround,
                                     Frame::alongZ(Eigen::Vector3d(1.0, 0.0, 0.0), Eigen::Vector3d::UnitX()), slider,
                                     Frame::alongZ(Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitX()));
  builder.drive(track, JointMotion::sinusoid(0.0, 0.1, 2.0));
  builder.addSpring("tie", arm, Eigen::Vector3d(0.4, 0.0, 0.1), slider, Eigen::Vector3d(0.0, 0.1, 0.0), 20.0, 0.5, 0.3);
  return builder.build();
}

}  // namespace

TEST_CASE("ParametricMechanism: the declared parameters, by name, and what they refuse", "[multibody][sensitivity]") {
  const Mechanism pendulum = planarPendulum();
  const ParametricMechanism all(pendulum);
  CHECK(all.parameterNames() ==
        std::vector<std::string>{"upper.mass", "upper.inertia", "lower.mass", "lower.inertia", "gravity.x", "gravity.y",
                                 "strut.stiffness", "strut.damping", "strut.rest_length", "elbow_spring.stiffness",
                                 "elbow_spring.damping", "elbow_spring.rest_angle", "elbow_spring.torque"});
  CHECK(all.parameterValues()[5] == -9.81);
  const ParametricMechanism chosen(pendulum, {"lower.mass", "strut.damping"});
  CHECK(chosen.np() == 2);
  CHECK(chosen.parameterValues() == Eigen::Vector2d(0.8, 0.4));
  CHECK_THROWS_WITH(ParametricMechanism(pendulum, {"strut.length"}),
                    Contains("no parameter 'strut.length'") && Contains("strut.rest_length"));
  CHECK_THROWS_WITH(ParametricMechanism(pendulum, {"lower.mass", "lower.mass"}), Contains("twice"));
  CHECK_THROWS_WITH(chosen.withParameterValues(Eigen::Vector2d(0.0, 0.4)), Contains("lower.mass") && Contains("0"));
  // A changed value reaches M and h.
  const auto heavier = chosen.withParameterValues(Eigen::Vector2d(1.8, 0.4));
  Vector d(pendulum.nq());
  heavier->massDiagonal(Vector::Zero(pendulum.nq()), d);
  CHECK(d.segment<2>(3) == Eigen::Vector2d(1.8, 1.8));
  // Principal moments of a spatial body: J̄ᵢ = ½ ΣJ − Jᵢ read back unchanged.
  const ParametricMechanism spatial(spatialMechanism(), {"arm.inertia[0]", "arm.inertia[1]", "arm.inertia[2]"});
  const Vector moments = spatial.parameterValues();
  const auto same = spatial.withParameterValues(moments);
  CHECK((same->parameterValues() - moments).cwiseAbs().maxCoeff() < 1e-15);
  CHECK_THROWS_WITH(spatial.withParameterValues(Eigen::Vector3d(0.1, 0.1, 1.0)), Contains("arm.inertia"));
}

TEST_CASE("ParametricMechanism: derivatives against central differences, planar, spatial and pivoted",
          "[multibody][sensitivity]") {
  std::mt19937_64 rng(4547);
  for (const Mechanism& mechanism : {planarPendulum(), spatialMechanism()}) {
    const ParametricMechanism model(mechanism);
    const int n = model.nq();
    for (const double step : {1e-3, 1e-4}) {
      const Vector q = mechanism.builtConfiguration() + randomVector(rng, n, 0.05);
      const Vector v = randomVector(rng, n, 1.0), a = randomVector(rng, n, 2.0);
      const Vector dq = randomVector(rng, n, 1.0), dv = randomVector(rng, n, 1.0);
      const ParameterDerivativeCheck check = checkParameterDerivatives(model, q, v, a, 0.3, dq, dv, step);
      INFO(mechanism.name() << ", step " << step << ": D " << check.dynamics_parameter_error << ", tangent "
                            << check.tangent_error);
      // M a + h is affine in every parameter: exact but for rounding. The tangent is O(step²).
      CHECK(check.dynamics_parameter_error < 1e-8);
      CHECK(check.constraint_parameter_error == 0.0);
      CHECK(check.tangent_error < 100.0 * step * step);
    }
  }
}

TEST_CASE("ParametricMechanism: forward sensitivities of the planar pendulum against central differences",
          "[multibody][sensitivity][sundials]") {
  const Mechanism pendulum = planarPendulum();
  const ParametricMechanism model(pendulum, {"upper.mass", "lower.inertia", "gravity.y", "strut.stiffness",
                                             "strut.damping", "elbow_spring.torque"});
  State start;
  start.q = pendulum.builtConfiguration();
  start.v = Vector::Zero(pendulum.nq());
  SimulationOptions options;
  options.integrator = Integrator::IdaGgl;
  options.end_time = 1.0;
  options.dt = 0.5;
  options.adaptive.rtol = options.adaptive.atol = 1e-9;
  SensitivityOptions sensitivity;
  sensitivity.integrand = kineticEnergyIntegrand(model);
  const SensitivityResult forward = computeSensitivities(model, start, options, sensitivity);
  sensitivity.method = SensitivityMethod::CentralDifferences;
  // δᵢ = step · max(|pᵢ|, 1): the default ∛rtol = 1e-3 is 2 % of lower.inertia = 0.05, whose
  // column then has an O(δ²/I²) truncation error of 5e-3 (measured); 1e-4 keeps it to 1e-5.
  sensitivity.difference_step = 1e-4;
  const SensitivityResult differences = computeSensitivities(model, start, options, sensitivity);
  INFO(forward.summary.briefReport() << "\n" << differences.summary.briefReport());
  REQUIRE(forward.summary.ok());
  REQUIRE(differences.summary.ok());
  const Matrix diff = (forward.sensitivities.back() - differences.sensitivities.back()).topRows(2 * model.nq());
  INFO("forward\n" << forward.sensitivities.back() << "\ncentral differences\n" << differences.sensitivities.back());
  CHECK(forward.sensitivities.back().topRows(2 * model.nq()).cwiseAbs().maxCoeff() > 1e-2);
  CHECK(diff.cwiseAbs().maxCoeff() < 1e-4);
  CHECK((forward.cost_gradient - differences.cost_gradient).cwiseAbs().maxCoeff() < 1e-4);
}

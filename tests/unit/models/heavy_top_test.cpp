// HeavyTop in director coordinates: its terms pass checkModel, its start has the benchmark's
// energy, and RK4 at a small step reaches the published displacement at t = 2 s.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <random>

#include "support/test_models.hpp"

using namespace kktdae;

namespace {

/// A random rotation (a normalized random quaternion) and a random angular velocity.
State randomState(const HeavyTop& top, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  const Eigen::Quaterniond quaternion(normal(rng), normal(rng), normal(rng), normal(rng));
  const Eigen::Vector3d omega(10 * normal(rng), 10 * normal(rng), 10 * normal(rng));
  return top.initialState(quaternion.normalized().toRotationMatrix(), omega);
}

}  // namespace

TEST_CASE("heavy_top: checkModel passes, the conservative bias included, on and off the manifold", "[models][heavy_top]") {
  const HeavyTop top;
  std::mt19937_64 rng(2026120501);
  std::vector<State> states;
  for (int s = 0; s < 3; ++s) {
    State state = randomState(top, rng);
    if (s == 2) state.q += testing::randomVector(rng, top.nq(), 0.1);  // off the manifold: every term of γ counts
    states.push_back(state);
  }
  ModelCheckOptions options;
  options.check_conservative_bias = true;
  const ModelCheckReport report = checkModel(top, states, options);
  INFO(report.describe());
  CHECK(report.ok());
}

TEST_CASE("heavy_top: the benchmark's start is on both manifolds with E0 = 5435.696790866 J", "[models][heavy_top]") {
  const HeavyTop top;
  const State start = top.initialState();
  Vector phi(6);
  Matrix J(6, 9);
  top.constraint(start.q, 0.0, phi);
  top.constraintJacobian(start.q, 0.0, J);
  CHECK(phi.lpNorm<Eigen::Infinity>() == 0.0);
  CHECK((J * start.v).lpNorm<Eigen::Infinity>() < 1e-13);
  // J̄ = ½ tr(J_O) I − J_O with J_O = diag(15.234375, 0.46875, 15.234375).
  CHECK(top.directorInertia()[0] == Approx(0.234375).epsilon(1e-15));
  CHECK(top.directorInertia()[1] == Approx(15.0).epsilon(1e-15));
  CHECK(top.directorInertia()[2] == Approx(0.234375).epsilon(1e-15));
  // E0 = ½ Ω·J_O Ω (V = 0 at R = I): ½ (0.46875·150² + 15.234375·4.61538²).
  CHECK(top.totalEnergy(start.q, start.v, 0.0) == Approx(5435.696790866).epsilon(1e-12));
  CHECK(top.energyScale() == Approx(15 * 9.81).epsilon(1e-15));
  CHECK(top.isConservative());
  CHECK(top.displacement(start.q).norm() == 0.0);
}

TEST_CASE("heavy_top: rk4 at dt 1e-4 reaches the published displacement at t = 2 s", "[models][heavy_top]") {
  const HeavyTop top;
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-4;
  options.end_time = 2.0;
  options.observe_every = 20000;
  State last;
  const Summary summary = simulate(top, top.initialState(), options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                     last = State{t, q, v};
                                   });
  INFO(summary.briefReport());
  REQUIRE(summary.ok());
  REQUIRE(last.t == 2.0);
  const Eigen::Vector3d error = top.displacement(last.q) - HeavyTop::kReferenceDisplacement;
  INFO("displacement " << top.displacement(last.q).transpose() << ", error " << error.transpose());
  CHECK(error.lpNorm<Eigen::Infinity>() < 1e-7);
}

TEST_CASE("heavy_top: bad parameters and starts throw naming the field", "[models][heavy_top]") {
  HeavyTopParams params;
  params.mass = 0.0;
  CHECK_THROWS_WITH(HeavyTop(params), Catch::Contains("mass"));
  params = {};
  params.centre_of_mass = Eigen::Vector3d(0.1, 1.0, 0.0);
  CHECK_THROWS_WITH(HeavyTop(params), Catch::Contains("centre_of_mass"));
  params = {};
  params.inertia_centre = Eigen::Vector3d(1.0, 1.0, 3.0);
  CHECK_THROWS_WITH(HeavyTop(params), Catch::Contains("inertia_centre"));
  const HeavyTop top;
  CHECK_THROWS_WITH(top.initialState(2.0 * Eigen::Matrix3d::Identity()), Catch::Contains("rotation"));
}

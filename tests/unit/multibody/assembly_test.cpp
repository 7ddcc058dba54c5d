// Assembly: Gauss–Newton onto φ = 0 from a perturbed configuration, velocities from independent
// joint rates; a loop that cannot close is named; an overconstrained loop needs MinimumNorm.
#include <catch2/catch.hpp>

#include <random>

#include "kktdae/multibody/andrews_mechanism.hpp"
#include "kktdae/multibody/assembly.hpp"
#include "kktdae/multibody/bricard_mechanism.hpp"
#include "kktdae/multibody/mechanism_builder.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using namespace kktdae::multibody;

TEST_CASE("assembly: andrews from a perturbed configuration, crank rate given, reproduces the Test Set's start", "[multibody][assembly]") {
  const Mechanism m = andrewsMechanism();
  const ConsistentStart hand = andrewsSqueezerStart();
  std::mt19937_64 rng(4506);
  State state{0.0, m.builtConfiguration() + testing::randomVector(rng, m.nq(), 1e-4), Vector::Zero(m.nq())};
  const int crank = m.jointIndex("O");
  const AssemblyReport report = assemble(m, state, {{crank, hand.state.v[0]}});
  INFO(report.message);
  REQUIRE(report.converged);
  CHECK(report.residual <= 1e-12);
  CHECK(report.iterations >= 2);
  CHECK(report.iterations <= 10);
  CHECK(report.rank == m.nc());
  CHECK(report.dependent_rows.empty());
  // The crank's rate fixes every rate of a one-degree-of-freedom mechanism.
  CHECK(m.jointRates(crank, state.q, state.v)[0] == Approx(hand.state.v[0]).margin(1e-12));
  CHECK((m.jointCoordinates(crank, state.q)[0]) == Approx(hand.state.q[0]).margin(1e-3));
}

TEST_CASE("assembly: a loop that cannot close is named", "[multibody][assembly]") {
  // A pendulum bar of length 1 whose far end is pinned 3 m from its pivot: no configuration closes.
  MechanismBuilder builder("open_loop");
  const int bar = builder.addPlanarBody("bar", {1.0, 0.1}, 0.5, 0.0, 0.0);
  builder.addJoint("pivot", JointKind::Revolute, MechanismBuilder::kGround, Frame::planar(0.0, 0.0), bar,
                   Frame::planar(-0.5, 0.0));
  builder.addJoint("far_pin", JointKind::Revolute, MechanismBuilder::kGround, Frame::planar(3.0, 0.0), bar,
                   Frame::planar(0.5, 0.0));
  const Mechanism m = builder.build();
  State state{0.0, m.builtConfiguration(), Vector::Zero(m.nq())};
  const AssemblyReport report = assemble(m, state);
  CHECK_FALSE(report.converged);
  CHECK(report.residual > 0.1);
  CHECK(report.failing_joint == "far_pin");
  CHECK_THAT(report.message, Catch::Contains("far_pin") && Catch::Contains("does not close"));
}

TEST_CASE("assembly: Bricard's loop assembles under MinimumNorm and is refused under Fail, naming the dependent row", "[multibody][assembly]") {
  const Mechanism m = bricardMechanism();
  std::mt19937_64 rng(4507);
  const Vector perturbed = m.builtConfiguration() + testing::randomVector(rng, m.nq(), 1e-3);
  State fail_state{0.0, perturbed, Vector::Zero(m.nq())};
  const AssemblyReport refused = assemble(m, fail_state);
  CHECK_FALSE(refused.converged);
  CHECK(refused.rank == m.nc() - 1);
  // One dependency that runs through the whole loop: every row it involves is named (the support
  // of null(Jᵀ)), not the one a pivoting order happened to leave last.
  CHECK(refused.dependent_rows.size() > 1);
  CHECK(static_cast<int>(refused.dependent_rows.size()) <= m.nc());
  CHECK_THAT(refused.message, Catch::Contains("MinimumNorm"));
  AssemblyOptions options;
  options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
  State state{0.0, perturbed, Vector::Zero(m.nq())};
  const AssemblyReport report = assemble(m, state, {{0, 0.7}}, options);
  INFO(report.message);
  REQUIRE(report.converged);
  CHECK(report.residual <= 1e-12);
  CHECK(report.dependent_rows == refused.dependent_rows);
  CHECK(m.jointRates(0, state.q, state.v)[0] == Approx(0.7).epsilon(1e-10));
}

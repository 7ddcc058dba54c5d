// Andrews' squeezer built from 7 bodies and 10 joints against the hand-coded AndrewsSqueezer and
// the IVP Test Set: the start is consistent, the accelerations there are the Test Set's, the
// terms pass checkModel, and IDA (GGL) at 1e-12 scores the published angles.
#include <catch2/catch.hpp>

#include <random>

#include "kktdae/experiments/test_set.hpp"
#include "kktdae/multibody/andrews_mechanism.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using namespace kktdae::multibody;

TEST_CASE("andrews bodies: 21 coordinates, 20 rows, checkModel passes", "[multibody][andrews]") {
  const Mechanism m = andrewsMechanism();
  CHECK(m.nq() == 21);
  CHECK(m.nc() == 20);
  CHECK(m.massStructure() == MassStructure::ConstantDiagonal);
  CHECK_FALSE(m.isConservative());  // the driving torque does work
  std::mt19937_64 rng(4505);
  std::vector<State> states;
  for (int s = 0; s < 3; ++s) {
    State state;
    state.q = m.builtConfiguration() + testing::randomVector(rng, 21, 0.01);
    state.v = testing::randomVector(rng, 21, 5.0);
    states.push_back(state);
  }
  ModelCheckOptions options;
  const ModelCheckReport report = checkModel(m, states, options);
  INFO(report.describe());
  CHECK(report.ok());
}

TEST_CASE("andrews bodies: the Test Set's start is consistent and its accelerations are the hand model's", "[multibody][andrews]") {
  const Mechanism m = andrewsMechanism();
  const ConsistentStart hand = andrewsSqueezerStart();
  const State start = andrewsBodyState(AndrewsSqueezerParams{}, hand.state);
  Vector phi(20), phi_dot(20);
  Matrix J(20, 21);
  m.constraint(start.q, 0.0, phi);
  m.constraintJacobian(start.q, 0.0, J);
  CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-15);
  CHECK((J * start.v).lpNorm<Eigen::Infinity>() < 1e-14);
  CHECK((andrewsAngles(m, start.q) - hand.state.q).lpNorm<Eigen::Infinity>() < 1e-15);
  KktOptions options;
  KktWorkspace ws(m, options);
  const KktResult result = solveAccelerations(m, 0.0, start.q, start.v, Vector(), Stabilization::none(), options, ws);
  REQUIRE(result.ok());
  // The angles' accelerations from the body accelerations (relative angles as differences).
  const Vector angle_acc = andrewsAngles(m, ws.qdd);
  INFO("angle accelerations " << angle_acc.transpose() << "\nTest Set's " << hand.qdd.transpose());
  CHECK((angle_acc - hand.qdd).lpNorm<Eigen::Infinity>() < 1e-9 * hand.qdd.lpNorm<Eigen::Infinity>());
}

TEST_CASE("andrews bodies: ida_ggl at rtol = atol = 1e-12 scores scd >= 9.5 on the 7 angles", "[multibody][andrews]") {
  const TestSetCase problem = makeTestSetCase(TestSetProblem::AndrewsBodies);
  TestSetRunOptions options;
  options.integrator = Integrator::IdaGgl;
  options.rtol = options.atol = 1e-12;
  const TestSetRunResult result = runTestSet(problem, options);
  INFO(result.summary.briefReport() << "\nangles " << result.scored.transpose());
  REQUIRE(result.reached_end);
  CHECK(result.scd >= 9.5);
}

TEST_CASE("andrews bodies: the sparse path takes the mechanism's J pattern and agrees with the dense one", "[multibody][andrews]") {
  const Mechanism m = andrewsMechanism();
  const State start = andrewsBodyState(AndrewsSqueezerParams{}, andrewsSqueezerStart().state);
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-5;
  options.end_time = 0.003;
  options.observe_every = 300;
  Vector q_dense, q_sparse;
  for (KktPath path : {KktPath::Dense, KktPath::Sparse}) {
    options.kkt.path = path;
    Vector& last = path == KktPath::Dense ? q_dense : q_sparse;
    const Summary summary =
        simulate(m, start, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { last = q; });
    INFO(toString(path) << ": " << summary.briefReport());
    REQUIRE(summary.ok());
  }
  CHECK(usesSparsePath(m, KktOptions{}));  // KktPath::Auto: 21 coordinates, a sparse J, a diagonal M
  CHECK((q_dense - q_sparse).lpNorm<Eigen::Infinity>() < 1e-10);
  CHECK((q_dense - start.q).lpNorm<Eigen::Infinity>() > 1e-3);  // it moved
}

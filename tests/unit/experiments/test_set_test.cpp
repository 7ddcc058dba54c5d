// The test-set runner: names, option checks (and the work-precision options' generalized-α
// member), scores that agree with the end state, formulations, and a ladder that covers every
// integrator with failed rungs as rows.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/experiments/test_set.hpp"
#include "kktdae/experiments/work_precision.hpp"
#include "kktdae/metrics/significant_digits.hpp"

using namespace kktdae;
using Catch::Contains;

TEST_CASE("test set: problem names round-trip and bad options are refused by name", "[experiments][testset]") {
  for (TestSetProblem problem : allTestSetProblems()) CHECK(parseTestSetProblem(toString(problem)) == problem);
  CHECK_THROWS_WITH(parseTestSetProblem("pendulum"), Contains("andrews") && Contains("caraxis"));
  const TestSetCase andrews = makeTestSetCase(TestSetProblem::Andrews);
  TestSetRunOptions options;
  options.integrator = Integrator::Rk4;
  options.fixed_steps = 2000;
  options.max_steps = 1000;
  CHECK_THROWS_WITH(runTestSet(andrews, options), Contains("fixed_steps") && Contains("max_steps"));
  options = {};
  options.integrator = Integrator::CvodeBdf;
  options.rtol = -1.0;
  CHECK_THROWS_WITH(runTestSet(andrews, options), Contains("rtol"));
  options = {};
  options.integrator = Integrator::GeneralizedAlpha;
  options.generalized_alpha.rho_inf = 1.5;
  CHECK_THROWS_WITH(runTestSet(andrews, options), Contains("generalized_alpha.rho_inf") && Contains("1.5"));
  TestSetLadderOptions ladder;
  ladder.generalized_alpha.hht_alpha = -0.5;
  CHECK_THROWS_WITH(runTestSetLadder(andrews, ladder), Contains("generalized_alpha.hht_alpha") && Contains("-0.5"));
  WorkPrecisionOptions comparison;
  comparison.generalized_alpha.newton_max_iterations = 0;
  CHECK_THROWS_WITH(comparison.validate(), Contains("generalized_alpha.newton_max_iterations") && Contains("0"));
}

TEST_CASE("test set: a run's scd is that of its end state, and lambda_source is the Test Set's sign",
          "[experiments][testset]") {
  const TestSetCase andrews = makeTestSetCase(TestSetProblem::Andrews);
  TestSetRunOptions options;
  options.integrator = Integrator::CvodeAdams;
  options.rtol = options.atol = 1e-6;
  const TestSetRunResult r = runTestSet(andrews, options);
  INFO(r.summary.briefReport());
  REQUIRE(r.reached_end);
  CHECK(r.scd == significantCorrectDigits(r.q, andrews.reference.q));
  CHECK(r.mescd == mixedErrorSignificantDigits(r.q, andrews.reference.q, 1e-6, 1e-6));
  CHECK(r.lambda_source == -r.lambda);
  CHECK(r.formulation == "index-1 ODE (KKT q̈)");
  CHECK(r.dt == 0.0);
}

TEST_CASE("test set: a run that fails keeps its status and has no scores", "[experiments][testset]") {
  const TestSetCase andrews = makeTestSetCase(TestSetProblem::Andrews);
  TestSetRunOptions options;
  options.integrator = Integrator::IdaIndex1;
  options.rtol = options.atol = 1e-10;
  options.max_steps = 20;  // far fewer than the ~2000 steps it needs
  const TestSetRunResult r = runTestSet(andrews, options);
  CHECK_FALSE(r.reached_end);
  CHECK(r.summary.status == RunStatus::SolverFailure);
  CHECK_FALSE(r.summary.message.empty());
  CHECK(r.scd == 0.0);
}

TEST_CASE("test set: the ladder runs every integrator of allIntegrators(), fixed-step rungs under the cap",
          "[experiments][testset]") {
  const TestSetCase car = makeTestSetCase(TestSetProblem::CarAxis);
  TestSetLadderOptions options;
  options.tolerances = {1e-5};
  options.fixed_steps = {300, 100000};
  options.max_steps = 3000;  // drops the 100000-step rung
  const std::vector<TestSetLadderRow> rows = runTestSetLadder(car, options);
  REQUIRE(rows.size() == allIntegrators().size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    INFO(toString(rows[k].result.integrator) << ": " << rows[k].result.summary.briefReport());
    CHECK(rows[k].result.integrator == allIntegrators()[k]);
    CHECK(rows[k].refusal.empty());
    CHECK_FALSE(rows[k].result.formulation.empty());
    if (!isAdaptive(rows[k].result.integrator)) CHECK(rows[k].result.dt == Approx(0.01));
  }
}

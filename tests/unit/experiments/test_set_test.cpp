// The test-set runner: names, option checks (and the work-precision options' generalized-α
// member), scores that agree with the end state, formulations, and a ladder that covers every
// integrator with failed rungs as rows, and an interrupt that ends the ladder with the rows finished.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <memory>

#include "kktdae/experiments/test_set.hpp"
#include "kktdae/experiments/work_precision.hpp"
#include "kktdae/metrics/significant_digits.hpp"
#include "kktdae/models/car_axis.hpp"

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

namespace {

/// The car axis that raises `stop` on its `calls`-th bias() evaluation: a signal arriving at a
/// known point of a ladder.
class CarAxisStoppingAfter final : public ConstrainedSystem {
 public:
  CarAxisStoppingAfter(long calls, std::atomic<bool>& stop) : calls_(calls), stop_(stop) {}
  std::string name() const override { return car_.name(); }
  int nq() const override { return car_.nq(); }
  int nc() const override { return car_.nc(); }
  MassStructure massStructure() const override { return car_.massStructure(); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { car_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override {
    if (++evaluated_ == calls_) stop_ = true;
    car_.bias(q, v, t, h);
  }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { car_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override { car_.constraintJacobian(q, t, J); }
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override {
    car_.constraintTimeDerivative(q, t, phi_t);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    car_.constraintBias(q, v, t, gamma);
  }
  bool isTimeDependent() const override { return true; }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return car_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return car_.potentialEnergy(q, t); }

 private:
  CarAxis car_;
  long calls_;
  std::atomic<bool>& stop_;
  mutable std::atomic<long> evaluated_{0};  // a test's counter: the ladder runs serially
};

}  // namespace

TEST_CASE("test set: an interrupt ends a run unfinished and the ladder after its rung, keeping the rows before",
          "[experiments][testset]") {
  std::atomic<bool> stop{true};
  const TestSetCase car = makeTestSetCase(TestSetProblem::CarAxis);
  TestSetRunOptions run;
  run.integrator = Integrator::Rk4;
  run.fixed_steps = 300;
  run.interrupt = &stop;
  const TestSetRunResult stopped = runTestSet(car, run);
  CHECK(stopped.summary.status == RunStatus::Interrupted);
  CHECK_FALSE(stopped.reached_end);

  // RK4's 300-step rung evaluates h about 1200 times; the flag goes up inside the 1000-step rung.
  stop = false;
  TestSetCase stopping = car;
  stopping.system = std::make_shared<CarAxisStoppingAfter>(2000, stop);
  TestSetLadderOptions options;
  options.integrators = {Integrator::Rk4, Integrator::SemiImplicitEuler};
  options.fixed_steps = {300, 1000};
  options.interrupt = &stop;
  const std::vector<TestSetLadderRow> rows = runTestSetLadder(stopping, options);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].result.reached_end);
  CHECK(rows[0].result.dt == Approx(0.01));
  CHECK(stop);
}

// simulate(): conservation, stabilization, determinism, observation and failure reporting.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <new>

#include "support/chain_starts.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

using kktdae::testing::kSeed0Tilt;

ChainRunMetrics runChain(const PendulumChain& chain, double tilt, const SimulationOptions& options) {
  ChainMetricsObserver metrics(chain);
  const Summary summary = simulate(chain, chain.initialState(tilt), options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                     metrics.observe(t, q, v);
                                   });
  INFO(summary.briefReport());
  REQUIRE(summary.ok());
  return metrics.metrics();
}

/// Two free coordinates pushed by a constant force of `push` N (unit masses, no constraints).
class PushedPair final : public ConstrainedSystem {
 public:
  explicit PushedPair(double push) : push_(push) {}
  std::string name() const override { return "pushed_pair"; }
  int nq() const override { return 2; }
  int nc() const override { return 0; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setOnes(); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, -push_; }
  void constraint(ConstVectorRef, double, VectorRef) const override {}
  void constraintJacobian(ConstVectorRef, double, MatrixRef) const override {}
  void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef) const override {}
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }

 private:
  double push_;
};

}  // namespace

TEST_CASE("simulate: a step that overflows ends NonFiniteState at that step, naming the first non-finite entry",
          "[simulate][errors]") {
  const PushedPair pair(1e300);  // q̈ = (0, 1e300): one step of 1e10 s overflows v[1]
  State start;
  start.q = Vector::Zero(2);
  start.v = Vector::Zero(2);
  SimulationOptions options;
  options.integrator = Integrator::ExplicitEuler;  // q from the old v (finite), then v overflows
  options.dt = 1e10;
  options.steps = 5;
  for (const bool rule : {true, false}) {
    options.divergence.enabled = rule;
    long observed = 0;
    const Summary s =
        simulate(pair, start, options, [&](double, ConstVectorRef, ConstVectorRef, ConstVectorRef) { ++observed; });
    INFO(s.briefReport());
    CHECK(s.status == RunStatus::NonFiniteState);
    CHECK(s.failed_step == 1);
    CHECK(s.steps == 0);
    CHECK(observed == 1);  // the initial state only
    CHECK_THAT(s.message, Contains("non-finite state after step 1 (t = 1e+10 s): v[1] = inf"));
  }
  options.integrator = Integrator::SemiImplicitEuler;  // v first, then q from it: q[1] is named
  start.v[0] = 1.0;  // q[0] stays finite
  const Summary s = simulate(pair, start, options);
  CHECK(s.status == RunStatus::NonFiniteState);
  CHECK_THAT(s.message, Contains("q[1] = inf"));
}

TEST_CASE("simulate: RK4 at small dt conserves the pendulum's energy and length", "[simulate][energy]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-3;
  options.steps = 10000;  // 10 s, about five periods
  const ChainRunMetrics m = runChain(chain, 0.3, options);
  WARN("RK4 pendulum dt=1e-3, 10 s: energy_rel_max " << m.energy_rel_max << ", max length error "
                                                      << m.max_violation);
  // RK4's error per unit time scales as dt⁴: at dt = 5e-3 seed 000 measured 1.2e-5 over 20 s,
  // so at 1e-3 over 10 s the drift must be below 1e-5 / 625 ≈ 2e-8; allow 5e-8.
  CHECK(m.energy_rel_max < 5e-8);
  CHECK(m.max_violation < 5e-8);
}

TEST_CASE("simulate: semi-implicit Euler's energy error is first order, explicit Euler's is far larger",
          "[simulate][energy]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  SimulationOptions options;
  options.stabilization = Stabilization::critical(20.0);
  options.integrator = Integrator::SemiImplicitEuler;
  options.dt = 1e-3;
  options.steps = 20000;  // 20 s
  const ChainRunMetrics semi = runChain(chain, 0.3, options);
  options.dt = 5e-4;
  options.steps = 40000;
  const ChainRunMetrics semi_half = runChain(chain, 0.3, options);
  options.integrator = Integrator::ExplicitEuler;
  options.dt = 1e-3;
  options.steps = 20000;
  const ChainRunMetrics explicit_euler = runChain(chain, 0.3, options);
  WARN("20 s pendulum: semi-implicit energy_rel_max " << semi.energy_rel_max << " (dt 1e-3), "
                                                       << semi_half.energy_rel_max << " (dt 5e-4); explicit "
                                                       << explicit_euler.energy_rel_max << " (dt 1e-3)");
  // Bounded and first order: halving dt halves the worst energy error over the same 20 s.
  CHECK(semi.energy_rel_max / semi_half.energy_rel_max == Approx(2.0).margin(0.4));
  CHECK(explicit_euler.energy_rel_max > 3.0 * semi.energy_rel_max);
}

TEST_CASE("simulate: Baumgarte holds the double pendulum's links at least 3x better than none",
          "[simulate][stabilization]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;  // seed 000's defaults: semi-implicit, dt 0.005, 4000 steps
  options.steps = 4000;
  const ChainRunMetrics none = runChain(chain, kSeed0Tilt, options);
  options.stabilization = Stabilization::critical(20.0);
  const ChainRunMetrics baumgarte = runChain(chain, kSeed0Tilt, options);
  WARN("double pendulum seed 0: max link error none " << none.max_violation << ", baumgarte "
                                                      << baumgarte.max_violation << " (ratio "
                                                      << none.max_violation / baumgarte.max_violation << ")");
  CHECK(none.max_violation > 3.0 * baumgarte.max_violation);
  // Seed 000's table: none 0.384 / 0.384 / 0.43, baumgarte 0.023 / 0.0014 / 0.32.
  CHECK(none.max_violation == Approx(0.384).margin(0.0005));
  CHECK(baumgarte.max_violation == Approx(0.023).margin(0.0005));
}

TEST_CASE("simulate: joint-coordinate and maximal-coordinate double pendulums move alike",
          "[simulate][cross-check]") {
  // Same physics in two coordinate systems: the chain with hard distance constraints and the
  // unconstrained joint-angle model with its configuration-dependent M(q) and Coriolis terms.
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const testing::JointDoublePendulum joint({});
  const double tilt = 0.2;  // chain along (cos −tilt, sin −tilt): angle from −y is π/2 − tilt
  State joint_start;
  joint_start.q = Vector::Constant(2, M_PI / 2 - tilt);
  joint_start.v = Vector::Zero(2);
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-3;
  options.steps = 1500;
  options.stabilization = Stabilization::critical(20.0);
  Eigen::Vector3d chain_tip;
  std::pair<double, double> joint_tip;
  REQUIRE(simulate(chain, chain.initialState(tilt), options,
                   [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { chain_tip = chain.tip(q); })
              .ok());
  REQUIRE(simulate(joint, joint_start, options,
                   [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { joint_tip = joint.tip(q); })
              .ok());
  INFO("chain tip " << chain_tip.transpose() << ", joint tip " << joint_tip.first << " " << joint_tip.second);
  CHECK(std::abs(chain_tip.x() - joint_tip.first) < 1e-8);
  CHECK(std::abs(chain_tip.y() - joint_tip.second) < 1e-8);
}

TEST_CASE("simulate: two identical runs are bitwise identical", "[simulate][determinism]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  for (Integrator integrator : allIntegrators()) {
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      SimulationOptions options;
      options.integrator = integrator;
      options.kkt.form = form;
      options.steps = 500;
      options.stabilization = Stabilization::critical(20.0);
      std::vector<double> first, second;
      auto recorder = [](std::vector<double>& out) {
        return [&out](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
          out.push_back(t);
          out.insert(out.end(), q.data(), q.data() + q.size());
          out.insert(out.end(), v.data(), v.data() + v.size());
          out.insert(out.end(), lambda.data(), lambda.data() + lambda.size());
        };
      };
      simulate(chain, chain.initialState(kSeed0Tilt), options, recorder(first));
      simulate(chain, chain.initialState(kSeed0Tilt), options, recorder(second));
      REQUIRE(first.size() == second.size());
      CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)) == 0);
    }
  }
}

TEST_CASE("simulate: observer sees t0, every k-th step and the last, counters add up", "[simulate]") {
  const CircleMass circle;
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 0.01;
  options.steps = 25;
  options.observe_every = 10;
  std::vector<double> times;
  const Summary s = simulate(circle, circle.initialState(1.0), options,
                             [&](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef lambda) {
                               times.push_back(t);
                               CHECK(lambda.size() == 1);
                             });
  REQUIRE(s.ok());
  CHECK(times == std::vector<double>{0.0, 0.1, 0.2, 0.25});
  CHECK(s.steps == 25);
  CHECK(s.kkt_solves == 1 + 4 * 25);  // λ at the start, then 4 stages per step (stage 1 reused)
  CHECK(s.t_final == 0.25);
  CHECK(s.max_phi_inf < 1e-6);
}

TEST_CASE("simulate: a controller's input reaches the dynamics through S", "[simulate]") {
  const testing::JointDoublePendulum joint({});
  State start;
  start.q = Vector::Zero(2);
  start.v = Vector::Zero(2);
  SimulationOptions options;
  options.steps = 10;
  options.dt = 1e-3;
  options.controller = [](double, ConstVectorRef, ConstVectorRef, VectorRef u) { u[0] = 2.0; };
  Vector last_q;
  REQUIRE(simulate(joint, start, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
            last_q = q;
          }).ok());
  CHECK(last_q[0] > 0.0);  // the motor torque turned the first joint
}

TEST_CASE("simulate: a model that turns NaN at t = 1 ends with a failed status and keeps the past",
          "[simulate][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const testing::NanAfterTime broken(chain, 1.0);
  for (Integrator integrator : allIntegrators()) {
    SimulationOptions options;
    options.integrator = integrator;
    options.dt = 0.01;
    options.steps = 200;
    long observed = 0;
    double last_t = -1.0;
    const Summary s = simulate(broken, chain.initialState(0.1), options,
                               [&](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef) {
                                 ++observed;
                                 last_t = t;
                               });
    INFO(s.briefReport());
    CHECK(s.status == RunStatus::KktFailure);
    CHECK_THAT(s.message, Contains("non-finite") && Contains("t = "));
    CHECK(last_t < 1.0);
    CHECK(last_t > 0.95);
    CHECK(observed == s.outputs);
    CHECK(s.failed_step == s.outputs);  // the output index whose interval failed
    CHECK(s.t_final == Approx(last_t));
    if (!isAdaptive(integrator)) CHECK(observed == s.steps + 1);
    CHECK(s.wall_seconds < 1.0);  // fails fast, no creeping toward t = 1
  }
}

TEST_CASE("simulate: a blow-up ends Diverged early, or NonFiniteState at the first non-finite step without the rule",
          "[simulate][errors]") {
  // Explicit Euler with a huge Baumgarte gain at a coarse step diverges (dt·ω ≫ 2).
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.integrator = Integrator::ExplicitEuler;
  options.dt = 0.05;
  options.steps = 5000;
  options.stabilization = Stabilization::critical(200.0);
  const Summary s = simulate(chain, chain.initialState(0.1), options);
  INFO(s.briefReport());
  CHECK(s.status == RunStatus::Diverged);
  CHECK(s.failed_step > 0);
  CHECK(s.steps == s.failed_step - 1);

  options.divergence.enabled = false;
  const Summary late = simulate(chain, chain.initialState(0.1), options);
  INFO(late.briefReport());
  CHECK((late.status == RunStatus::NonFiniteState || late.status == RunStatus::KktFailure));
  CHECK(late.steps == late.failed_step - 1);
  CHECK(late.failed_step > s.failed_step);  // the rule stops it before the numbers overflow
}

TEST_CASE("simulate: invalid options throw naming the field and value", "[simulate][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  const State start = chain.initialState(0.0);
  SimulationOptions options;
  options.dt = 0.0;
  CHECK_THROWS_WITH(simulate(chain, start, options), Contains("dt") && Contains("0"));
  options.dt = -0.1;
  CHECK_THROWS_WITH(simulate(chain, start, options), Contains("dt") && Contains("-0.1"));
  options.dt = std::nan("");
  CHECK_THROWS_WITH(simulate(chain, start, options), Contains("dt") && Contains("nan"));
  options = SimulationOptions();
  options.steps = -5;
  CHECK_THROWS_WITH(simulate(chain, start, options), Contains("steps") && Contains("-5"));
  options = SimulationOptions();
  options.observe_every = 0;
  CHECK_THROWS_WITH(simulate(chain, start, options), Contains("observe_every"));
  options = SimulationOptions();
  State wrong = start;
  wrong.q.resize(4);
  CHECK_THROWS_WITH(simulate(chain, wrong, options), Contains("q: size 4, expected 3"));
  CHECK_THROWS_WITH(parseIntegrator("leapfrog"), Contains("leapfrog") && Contains("rk4"));
}

TEST_CASE("simulate: a run whose workspaces cannot be allocated throws std::bad_alloc, not a failed status",
          "[simulate][errors]") {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer aborts on an allocation the machine refuses instead of returning null.
  WARN("not under AddressSanitizer");
#else
  // The dense path's J alone is 10^5 x 3·10^5 doubles (240 GB): the allocator refuses it at once.
  // Out of memory is the machine's limit, not the method's failure: a status (it was
  // SolverFailure, "the run could not be set up") would read as a result and an app would exit 0.
  const PendulumChain chain(PendulumChainParams::uniform(100000));
  SimulationOptions options;
  options.kkt.path = KktPath::Dense;
  options.steps = 1;
  CHECK_THROWS_AS(simulate(chain, chain.initialState(0.1), options), std::bad_alloc);
#endif
}

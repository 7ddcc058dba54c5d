// The SUNDIALS integrators behind simulate(): accuracy against a fixed-step reference,
// GGL's hold on the constraints, failure reporting, option checking.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

const Integrator kAdaptiveIntegrators[] = {Integrator::CvodeBdf, Integrator::CvodeAdams, Integrator::IdaIndex1,
                                Integrator::IdaGgl};

/// (q, v) at the last output of a run on a 0.01 s output grid.
Vector finalState(const ConstrainedSystem& system, const State& start, SimulationOptions options) {
  Vector out;
  const Summary s = simulate(system, start, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    out.resize(2 * q.size());
    out << q, v;
  });
  INFO(s.briefReport());
  REQUIRE(s.ok());
  return out;
}

SimulationOptions adaptiveOptions(Integrator integrator, double rtol, double horizon) {
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = 0.01;
  options.steps = std::lround(horizon / options.dt);
  options.adaptive.rtol = rtol;
  options.adaptive.atol = 1e-2 * rtol;
  return options;
}

}  // namespace

TEST_CASE("adaptive: CVODE and both IDA forms match an RK4 small-dt reference over 2 s",
          "[sundials][accuracy]") {
  for (int links : {1, 2}) {
    const PendulumChain chain(PendulumChainParams::uniform(links));
    const State start = chain.initialState(0.1);
    SimulationOptions reference_options;
    reference_options.integrator = Integrator::Rk4;
    reference_options.dt = 1e-4;  // RK4's own error here is ~1e-13, far below what is checked
    reference_options.steps = 20000;
    const Vector reference = finalState(chain, start, reference_options);
    for (Integrator integrator : kAdaptiveIntegrators) {
      double previous_error = 0.0;
      for (double rtol : {1e-6, 1e-8}) {
        const double error =
            (finalState(chain, start, adaptiveOptions(integrator, rtol, 2.0)) - reference).lpNorm<Eigen::Infinity>();
        INFO(links << " links, " << toString(integrator) << ", rtol " << rtol << ": error at 2 s " << error);
        // A local tolerance ε gives a global error C·ε; over these 2 s C was measured between 9
        // and 800 (docs/integrators.md), so 1e3·ε bounds every case with margin.
        CHECK(error < 1e3 * rtol);
        // Tolerance proportionality: a 100× tighter tolerance must buy at least 5× accuracy.
        if (previous_error > 0.0) CHECK(error < previous_error / 5.0);
        previous_error = error;
      }
    }
  }
}

TEST_CASE("adaptive: ida_ggl holds phi within 10 (rtol + atol) at every output over 20 s without Baumgarte",
          "[sundials][ggl]") {
  for (int links : {2, 3}) {
    const PendulumChain chain(PendulumChainParams::uniform(links));
    double previous_drift = 0.0;
    for (double rtol : {1e-6, 1e-7}) {
      SimulationOptions options = adaptiveOptions(Integrator::IdaGgl, rtol, 20.0);
      EnergyDrift energy(chain);
      const Summary s = simulate(chain, chain.initialState(0.1), options,
                                 [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                   energy.observe(t, q, v);
                                 });
      INFO(links << " links, rtol " << rtol << ": " << s.briefReport() << ", energy drift " << energy.maxAbsDrift());
      REQUIRE(s.ok());
      CHECK(s.outputs == 2001);
      CHECK(s.max_phi_inf <= 10.0 * (options.adaptive.rtol + options.adaptive.atol));
      WARN("ida_ggl " << links << " links rtol " << rtol << ": max|phi| " << s.max_phi_inf << " = "
                      << s.max_phi_inf / (options.adaptive.rtol + options.adaptive.atol) << " (rtol+atol), "
                      << s.steps << " steps, energy drift " << energy.maxAbsDrift() << " J");
      if (previous_drift > 0.0) CHECK(energy.maxAbsDrift() < previous_drift);
      previous_drift = energy.maxAbsDrift();
    }
  }
}

TEST_CASE("adaptive: outputs land exactly on the grid, by interpolation or by stopping there", "[sundials]") {
  const CircleMass circle;
  for (Integrator integrator : kAdaptiveIntegrators) {
    for (bool stop : {false, true}) {
      SimulationOptions options = adaptiveOptions(integrator, 1e-8, 0.5);
      options.stabilization = Stabilization::baumgarte(5.0, 10.0);
      options.dt = 0.05;
      options.steps = 10;
      options.adaptive.stop_at_outputs = stop;
      std::vector<double> times;
      const Summary s = simulate(circle, circle.initialState(1.0), options,
                                 [&](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef) { times.push_back(t); });
      INFO(toString(integrator) << " stop_at_outputs " << stop << ": " << s.briefReport());
      REQUIRE(s.ok());
      REQUIRE(times.size() == 11);
      for (std::size_t k = 0; k < times.size(); ++k) CHECK(times[k] == Approx(0.05 * static_cast<double>(k)).margin(1e-14));
      CHECK(s.rhs_evaluations > 0);
      CHECK(s.steps > 0);
    }
  }
}

TEST_CASE("adaptive: a model failure ends the run with the SUNDIALS flag, time and step, and nothing on stderr",
          "[sundials][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const testing::NanAfterTime broken(chain, 1.0);
  const std::string capture = "kktdae_sundials_stderr.txt";
  for (Integrator integrator : kAdaptiveIntegrators) {
    // Route stderr to a file for the run: SUNDIALS must report through spdlog, not print.
    std::fflush(stderr);
    const int saved = dup(fileno(stderr));
    REQUIRE(std::freopen(capture.c_str(), "w", stderr) != nullptr);
    const Summary s = simulate(broken, chain.initialState(0.1), adaptiveOptions(integrator, 1e-6, 2.0));
    std::fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    std::ifstream in(capture);
    std::stringstream printed;
    printed << in.rdbuf();
    INFO(toString(integrator) << ": " << s.briefReport());
    CHECK(s.status == RunStatus::KktFailure);
    CHECK_THAT(s.message, Contains("_FAIL") && Contains("t = ") && Contains("last step") && Contains("non-finite"));
    CHECK(s.t_final < 1.0);
    CHECK(printed.str().empty());
  }
  std::remove(capture.c_str());
}

TEST_CASE("adaptive: ida_ggl reports ignored Baumgarte gains and an initial projection", "[sundials][ggl]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  State start = chain.initialState(0.1);
  start.q[0] += 1e-3;  // off the manifold: GGL's initialization must project
  SimulationOptions options = adaptiveOptions(Integrator::IdaGgl, 1e-8, 0.1);
  options.stabilization = Stabilization::critical(20.0);
  const Summary s = simulate(chain, start, options);
  INFO(s.briefReport() << " | " << s.notes);
  REQUIRE(s.ok());
  CHECK_THAT(s.notes, Contains("ignores baumgarte") && Contains("initial projection"));
  CHECK(s.max_phi_inf < 1e-9);
}

TEST_CASE("adaptive: invalid tolerances and limits throw naming the field", "[sundials][errors]") {
  const CircleMass circle;
  const State start = circle.initialState(1.0);
  SimulationOptions options = adaptiveOptions(Integrator::CvodeBdf, 1e-6, 0.1);
  options.adaptive.rtol = 0.0;
  CHECK_THROWS_WITH(simulate(circle, start, options), Contains("adaptive.rtol"));
  options = adaptiveOptions(Integrator::IdaGgl, 1e-6, 0.1);
  options.adaptive.atol = -1.0;
  CHECK_THROWS_WITH(simulate(circle, start, options), Contains("adaptive.atol"));
  options = adaptiveOptions(Integrator::CvodeAdams, 1e-6, 0.1);
  options.adaptive.atol_per_component = Vector::Ones(3);
  CHECK_THROWS_WITH(simulate(circle, start, options), Contains("atol_per_component") && Contains("expected 4"));
  options = adaptiveOptions(Integrator::IdaIndex1, 1e-6, 0.1);
  options.adaptive.max_steps = 0;
  CHECK_THROWS_WITH(simulate(circle, start, options), Contains("max_steps"));
}

TEST_CASE("adaptive: too little work allowed ends with CV_TOO_MUCH_WORK, not a hang", "[sundials][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options = adaptiveOptions(Integrator::CvodeBdf, 1e-10, 1.0);
  options.adaptive.max_steps = 3;
  const Summary s = simulate(chain, chain.initialState(0.1), options);
  INFO(s.briefReport());
  CHECK(s.status == RunStatus::SolverFailure);
  CHECK_THAT(s.message, Contains("CV_TOO_MUCH_WORK"));
}

namespace {
/// A circle whose bias throws once t passes 0.05: a user model with a bug.
class ThrowingCircle final : public ConstrainedSystem {
 public:
  std::string name() const override { return "throwing_circle"; }
  int nq() const override { return 2; }
  int nc() const override { return 1; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setOnes(); }
  void bias(ConstVectorRef, ConstVectorRef, double t, VectorRef h) const override {
    if (t > 0.05) throw std::runtime_error("model bug at t > 0.05");
    h << 0.0, 9.81;
  }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { circle_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override { circle_.constraintJacobian(q, t, J); }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef g) const override {
    circle_.constraintBias(q, v, t, g);
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return circle_.potentialEnergy(q, t); }

 private:
  CircleMass circle_;
};
}  // namespace

TEST_CASE("adaptive: a model that throws ends the run with a status, never an exception through simulate",
          "[sundials][errors]") {
  const ThrowingCircle model;
  for (Integrator integrator : {Integrator::CvodeBdf, Integrator::CvodeAdams, Integrator::IdaIndex1,
                                Integrator::IdaGgl, Integrator::Rk4}) {
    SimulationOptions options = adaptiveOptions(integrator, 1e-6, 0.2);
    options.dt = 0.01;
    Summary s;
    CHECK_NOTHROW(s = simulate(model, CircleMass().initialState(1.0), options));
    INFO(toString(integrator) << ": " << s.briefReport());
    CHECK_FALSE(s.ok());
    CHECK_THAT(s.message, Contains("model bug"));
  }
}

TEST_CASE("adaptive: combinations SUNDIALS cannot do are refused up front", "[sundials][errors]") {
  const CircleMass circle;
  SimulationOptions options = adaptiveOptions(Integrator::CvodeAdams, 1e-6, 0.1);
  options.stabilization = Stabilization::projection();
  CHECK_THROWS_WITH(simulate(circle, circle.initialState(1.0), options), Contains("BDF"));
  options = adaptiveOptions(Integrator::IdaIndex1, 1e-6, 0.1);
  options.stabilization = Stabilization::softConstraint();
  CHECK_THROWS_WITH(simulate(circle, circle.initialState(1.0), options), Contains("ida_index1"));
}

TEST_CASE("adaptive: CVODE solves the KKT system at an output only for an observer, and the run is the same without one",
          "[sundials][outputs]") {
  const CircleMass circle;  // seed 002's problem, block form, 200 outputs
  for (const Integrator integrator : {Integrator::CvodeBdf, Integrator::CvodeAdams}) {
    SimulationOptions options = adaptiveOptions(integrator, 1e-6, 1.0);
    options.stabilization = Stabilization::baumgarte(5.0, 10.0);
    options.kkt.form = KktForm::Block;
    options.dt = 0.005;
    options.steps = 200;
    long observed = 0;
    const Observer count = [&](double, ConstVectorRef, ConstVectorRef, ConstVectorRef) { ++observed; };
    const Summary bare = simulate(circle, circle.initialState(), options);
    const Summary watched = simulate(circle, circle.initialState(), options, count);
    options.observe_every = 10;
    observed = 0;
    const Summary sparse = simulate(circle, circle.initialState(), options, count);
    INFO(toString(integrator) << ": " << bare.briefReport() << " | " << watched.briefReport());
    REQUIRE(bare.ok());
    REQUIRE(watched.ok());
    REQUIRE(sparse.ok());
    CHECK(observed == 21);
    // The outputs' solves do not feed back into the integration: same steps, same violations.
    CHECK(bare.steps == watched.steps);
    CHECK(bare.rhs_evaluations == watched.rhs_evaluations);
    CHECK(bare.outputs == watched.outputs);
    CHECK(bare.max_phi_inf == watched.max_phi_inf);
    CHECK(bare.max_phi_dot_inf == watched.max_phi_dot_inf);
    CHECK(bare.final_phi_inf == watched.final_phi_inf);
    // One solve per right-hand side, per analytic Newton matrix and at the start; the observer
    // adds one per state it is handed after the start: with Baumgarte gains, the solve for the
    // physical λ (no feedback), counted apart.
    CHECK(bare.kkt_solves == bare.rhs_evaluations + bare.jacobian_evaluations + 1);
    CHECK(watched.kkt_solves == bare.kkt_solves);
    CHECK(bare.observation_kkt_solves == 0);
    CHECK(watched.observation_kkt_solves == 201);  // the start's λ, then every output's
    CHECK(sparse.observation_kkt_solves == 21);
    // min_rcond covers the right-hand side's solves whether or not the outputs solve.
    CHECK(bare.min_rcond > 0.0);
    CHECK(bare.min_rcond <= 1.0);
    CHECK(watched.min_rcond <= bare.min_rcond);
  }
}

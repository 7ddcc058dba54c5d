// The IVP Test Set's Andrews squeezer and car axis: parameters, derivatives against finite
// differences, the published consistent start against our KKT solve (with the multipliers'
// sign conventions), h against ∇V, and one adaptive run of each problem against the published
// reference at the accuracy its tolerance buys.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/andrews_squeezer.hpp"
#include "kktdae/models/car_axis.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/system/derivative_check.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// Random states near the start: every angle or coordinate moved by up to `spread`, rates in
/// ±rate. They need not satisfy φ = 0 (the checks are of derivatives, not of the manifold).
std::vector<State> randomStates(const State& around, double spread, double rate, unsigned seed, int count) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(-spread, spread), speed(-rate, rate), time(0.0, 3.0);
  std::vector<State> states;
  for (int k = 0; k < count; ++k) {
    State s = around;
    for (Eigen::Index i = 0; i < s.q.size(); ++i) {
      s.q[i] += offset(rng);
      s.v[i] = speed(rng);
    }
    s.t = time(rng);
    states.push_back(s);
  }
  return states;
}

/// max |h(q, 0, t) − ∂V/∂q| by central differences, next to max |h|: with q̇ = 0 only the
/// conservative forces are left in h.
std::pair<double, double> biasAgainstPotentialGradient(const ConstrainedSystem& system, const State& s) {
  const int nq = system.nq();
  Vector h(nq);
  system.bias(s.q, Vector::Zero(nq), s.t, h);
  double error = 0.0;
  for (int i = 0; i < nq; ++i) {
    const double step = 1e-6 * std::max(1.0, std::abs(s.q[i]));
    Vector plus = s.q, minus = s.q;
    plus[i] += step;
    minus[i] -= step;
    const double gradient = (system.potentialEnergy(plus, s.t) - system.potentialEnergy(minus, s.t)) / (2.0 * step);
    error = std::max(error, std::abs(h[i] - gradient));
  }
  return {error, h.lpNorm<Eigen::Infinity>()};
}

struct EndState {
  Summary summary;
  Vector q, v, lambda;
};

/// One adaptive run from the start to t_end with a single output there (the solver stops on it).
EndState runToEnd(const ConstrainedSystem& system, const State& start, double t_end, Integrator integrator,
                  double rtol, double atol) {
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = t_end;
  options.steps = 1;
  options.adaptive.rtol = rtol;
  options.adaptive.atol = atol;
  options.adaptive.stop_at_outputs = true;
  EndState end;
  end.summary = simulate(system, start, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef l) {
    end.q = q;
    end.v = v;
    end.lambda = l;
  });
  return end;
}

/// max |x − ref| / |ref| over the entries: what the Test Set's scd is −log₁₀ of.
double maxRelativeError(ConstVectorRef x, ConstVectorRef ref) {
  return ((x - ref).array().abs() / ref.array().abs()).maxCoeff();
}

}  // namespace

TEST_CASE("testset models: parameters are validated with the field and value named", "[models][testset]") {
  AndrewsSqueezerParams params;
  params.m3 = -1.0;
  CHECK_THROWS_WITH(AndrewsSqueezer(params), Contains("m3") && Contains("-1"));
  params = {};
  params.mom = std::nan("");
  CHECK_THROWS_WITH(AndrewsSqueezer(params), Contains("mom"));
  CarAxisParams car;
  car.r = 1.5;
  CHECK_THROWS_WITH(CarAxis(car), Contains("r") && Contains("1.5"));
  car = {};
  car.eps = 0.0;
  CHECK_THROWS_WITH(CarAxis(car), Contains("eps"));
}

TEST_CASE("andrews: J and gamma pass checkDerivatives at the start and at random states", "[models][testset]") {
  const AndrewsSqueezer model;
  // Rates up to 1500 rad/s: the mechanism reaches 1400 rad/s by t = 0.03 s.
  for (const State& s : randomStates(andrewsSqueezerStart().state, 0.5, 1500.0, 7u, 20)) {
    const DerivativeCheckReport report = checkDerivatives(model, s.q, s.v, s.t);
    INFO(report.describe());
    CHECK(report.worstRelativeError() < 1e-7);  // central differences: ~1e-9 on these terms
    CHECK(report.mass_asymmetry == 0.0);
    CHECK(report.time_derivative_error == 0.0);  // scleronomic: φ does not move with t
  }
}

TEST_CASE("andrews: h at rest is the gradient of the spring's and the torque's potential", "[models][testset]") {
  const AndrewsSqueezer model;
  for (const State& s : randomStates(andrewsSqueezerStart().state, 0.5, 0.0, 11u, 10)) {
    const auto [error, scale] = biasAgainstPotentialGradient(model, s);
    INFO("max |h - dV/dq| = " << error << ", max |h| = " << scale);
    CHECK(error < 1e-7 * std::max(1.0, scale));
  }
}

TEST_CASE("andrews: the Test Set's start is consistent and our KKT solve gives its accelerations and -lambda",
          "[models][testset]") {
  const AndrewsSqueezer model;
  const ConsistentStart start = andrewsSqueezerStart();
  Vector phi(6), phi_t(6);
  Matrix J(6, 7);
  model.constraint(start.state.q, 0.0, phi);
  model.constraintJacobian(start.state.q, 0.0, J);
  model.constraintTimeDerivative(start.state.q, 0.0, phi_t);
  // φ's terms are lengths of a few centimetres: round-off is ~1e-17 m.
  CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-15);
  CHECK((J * start.state.v + phi_t).lpNorm<Eigen::Infinity>() < 1e-15);

  KktWorkspace ws(model);
  const KktResult result = solveAccelerations(model, 0.0, start.state.q, start.state.v, Vector(), Stabilization::none(),
                                              KktOptions{}, ws);
  REQUIRE(result.ok());
  // The acceleration constraint J q̈ + γ = 0 with the Test Set's q̈ (γ = 0 at rest).
  Vector gamma(6);
  model.constraintBias(start.state.q, start.state.v, 0.0, gamma);
  CHECK((J * start.qdd + gamma).lpNorm<Eigen::Infinity>() < 1e-10);  // |J| |q̈| ≈ 4e2 m/s²: round-off
  const double qdd_error = (ws.qdd - start.qdd).lpNorm<Eigen::Infinity>() / start.qdd.lpNorm<Eigen::Infinity>();
  const double lambda_error =
      (ws.lambda - start.lambda).lpNorm<Eigen::Infinity>() / start.lambda.lpNorm<Eigen::Infinity>();
  INFO("q̈ relative error " << qdd_error << ", λ relative error " << lambda_error);
  CHECK(qdd_error < 1e-12);
  CHECK(lambda_error < 1e-12);
  // In the Test Set's convention the multipliers are the published ones.
  const ReferenceSolution ref = andrewsSqueezerReference();
  CHECK(ref.lambda_to_source * ws.lambda[0] == Approx(98.5668703962410896057654982170).epsilon(1e-12));
}

TEST_CASE("caraxis: J, dphi/dt and gamma (with its explicit-time terms) pass checkDerivatives", "[models][testset]") {
  const CarAxis model;
  for (const State& s : randomStates(carAxisStart().state, 0.2, 2.0, 5u, 20)) {
    const DerivativeCheckReport report = checkDerivatives(model, s.q, s.v, s.t);
    INFO(report.describe());
    CHECK(report.worstRelativeError() < 1e-7);
  }
  // The check must see the time dependence: ∂φ₁/∂t = ẋ_b x_l + ẏ_b y_l ≠ 0 here.
  Vector phi_t(2);
  model.constraintTimeDerivative(carAxisStart().state.q, 0.0, phi_t);
  CHECK(phi_t[0] == Approx(0.5));  // ẏ_b(0) = r ω = 1, y_l = L0 = 0.5
}

TEST_CASE("caraxis: h at rest is the gradient of the springs' and gravity's potential", "[models][testset]") {
  const CarAxis model;
  for (const State& s : randomStates(carAxisStart().state, 0.2, 0.0, 3u, 10)) {
    const auto [error, scale] = biasAgainstPotentialGradient(model, s);
    INFO("max |h - dV/dq| = " << error << ", max |h| = " << scale);
    CHECK(error < 1e-8);
  }
}

TEST_CASE("caraxis: the Test Set's start is consistent and our KKT solve gives its accelerations and lambda = 0",
          "[models][testset]") {
  const CarAxis model;
  const ConsistentStart start = carAxisStart();
  Vector phi(2), phi_t(2), gamma(2);
  Matrix J(2, 4);
  model.constraint(start.state.q, 0.0, phi);
  model.constraintJacobian(start.state.q, 0.0, J);
  model.constraintTimeDerivative(start.state.q, 0.0, phi_t);
  model.constraintBias(start.state.q, start.state.v, 0.0, gamma);
  CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-15);
  CHECK((J * start.state.v + phi_t).lpNorm<Eigen::Infinity>() < 1e-15);
  CHECK((J * start.qdd + gamma).lpNorm<Eigen::Infinity>() < 1e-15);
  KktWorkspace ws(model);
  const KktResult result = solveAccelerations(model, 0.0, start.state.q, start.state.v, Vector(), Stabilization::none(),
                                              KktOptions{}, ws);
  REQUIRE(result.ok());
  CHECK((ws.qdd - start.qdd).lpNorm<Eigen::Infinity>() < 1e-12);
  CHECK(ws.lambda.lpNorm<Eigen::Infinity>() < 1e-15);
  CHECK(start.qdd[1] == -1.0);  // gravity g = 1 alone: both springs start at rest length
}

// Both runs take IDA on the GGL form: it holds φ and φ̇ (|φ| ~ 1e-15 on Andrews), as the Test
// Set's index-3 solvers do, and buys the most digits at this tolerance of the four adaptive
// integrators (docs/benchmarks.md has the ladder). The bounds are 10× the errors measured here
// (Andrews: 1.2e-6 on the angles, 1.6e-6 on the energy, 1.5e-5 on λ; car axis: 5.8e-7 on the
// positions, 1.1e-8 on λ): rounding and library versions move such errors by far less than a
// decade, while a wrong term in M, h, J or γ gives relative errors of order one.
TEST_CASE("andrews: IDA GGL at rtol 1e-7 ends at the Test Set's reference and conserves energy",
          "[models][testset]") {
  const AndrewsSqueezer model;
  const ConsistentStart start = andrewsSqueezerStart();
  const ReferenceSolution ref = andrewsSqueezerReference();
  const EndState end = runToEnd(model, start.state, ref.t_end, Integrator::IdaGgl, 1e-7, 1e-7);
  INFO(end.summary.briefReport());
  REQUIRE(end.summary.ok());
  const double error = maxRelativeError(end.q, ref.q);
  const double energy_start = model.totalEnergy(start.state.q, start.state.v, 0.0);
  const double energy_error = std::abs(model.totalEnergy(end.q, end.v, ref.t_end) - energy_start) / energy_start;
  const double lambda_error = maxRelativeError(end.lambda, ref.lambda);
  INFO("max relative error of the 7 angles " << error << " (scd " << -std::log10(error) << "), relative energy error "
                                             << energy_error << ", λ " << lambda_error);
  CHECK(error < 1.2e-5);
  CHECK(energy_error < 1.6e-5);
  CHECK(lambda_error < 1.5e-4);  // our λ against the Test Set's negated multipliers
  CHECK(-std::log10(error) > 4.46);  // RADAU5's published scd at this tolerance
}

TEST_CASE("caraxis: IDA GGL at rtol 1e-7 ends at the Test Set's reference", "[models][testset]") {
  const CarAxis model;
  const ReferenceSolution ref = carAxisReference();
  const EndState end = runToEnd(model, carAxisStart().state, ref.t_end, Integrator::IdaGgl, 1e-7, 1e-7);
  INFO(end.summary.briefReport());
  REQUIRE(end.summary.ok());
  const double error = maxRelativeError(end.q, ref.q);
  const double lambda_error = (end.lambda - ref.lambda).lpNorm<Eigen::Infinity>();
  INFO("max relative error of the 4 positions " << error << " (scd " << -std::log10(error) << "), λ error "
                                                << lambda_error);
  CHECK(error < 5.8e-6);
  // 10× the measured error plus the reference's own uncertainty in λ (about 7e-8).
  CHECK(lambda_error < 1.1e-7 + 7e-8);
}

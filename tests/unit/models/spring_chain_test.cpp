// SpringChain: the joint forces are the gradient of the spring potential and the Rayleigh
// damping (finite differences), the model passes checkModel, and an rk4 run at a small step keeps
// its energy.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;

namespace {

SpringChain springChain(int links, double stiffness, double damping) {
  SpringChainParams params;
  params.chain = PendulumChainParams::uniform(links, 1.0, 0.5);
  params.chain.masses.back() = 2.0;
  params.chain.pivot << 0.1, -0.2, 0.0;
  params.joint_stiffness = stiffness;
  params.joint_damping = damping;
  return SpringChain(params);
}

/// A bent chain: the straight chain at tilt 0.4 with every coordinate moved by up to ±0.15.
State bentState(const SpringChain& chain, std::mt19937_64& rng) {
  State state = chain.initialState(0.4);
  state.q += randomVector(rng, chain.nq(), 0.15);
  state.v = randomVector(rng, chain.nq(), 1.0);
  return state;
}

}  // namespace

TEST_CASE("spring_chain: h at rest is the gradient of the potential (central differences)", "[models][spring_chain]") {
  const SpringChain chain = springChain(5, 40.0, 0.0);
  std::mt19937_64 rng(2026120101);
  for (int trial = 0; trial < 5; ++trial) {
    const State state = bentState(chain, rng);
    Vector h(chain.nq()), gradient(chain.nq());
    chain.bias(state.q, Vector::Zero(chain.nq()), 0.0, h);
    for (int i = 0; i < chain.nq(); ++i) {
      Vector plus = state.q, minus = state.q;
      const double step = 1e-6;
      plus[i] += step;
      minus[i] -= step;
      gradient[i] = (chain.potentialEnergy(plus, 0.0) - chain.potentialEnergy(minus, 0.0)) / (2 * step);
    }
    INFO("trial " << trial << "\nh    " << h.transpose() << "\ngrad " << gradient.transpose());
    // V ~ 40 J: central differences at 1e-6 are good to ~1e-8; a wrong sign or a dropped
    // neighbour is O(k θ) ~ 10.
    CHECK((h - gradient).lpNorm<Eigen::Infinity>() < 1e-6);
    // The springs really act: h differs from gravity alone by O(k θ).
    Vector gravity_only(chain.nq());
    chain.chain().bias(state.q, state.v, 0.0, gravity_only);
    CHECK((h - gravity_only).lpNorm<Eigen::Infinity>() > 1.0);
  }
}

TEST_CASE("spring_chain: the damper force is c * thetadot_j * grad theta_j (rates by central differences)",
          "[models][spring_chain]") {
  const double damping = 3.0;
  const SpringChain chain = springChain(4, 40.0, damping);
  std::mt19937_64 rng(2026120102);
  const State state = bentState(chain, rng);
  const Vector w = randomVector(rng, chain.nq(), 1.0);
  Vector h_moving(chain.nq()), h_rest(chain.nq());
  chain.bias(state.q, state.v, 0.0, h_moving);
  chain.bias(state.q, Vector::Zero(chain.nq()), 0.0, h_rest);
  // (h(q, v) − h(q, 0))·w = c Σ_j θ̇_j (∇θ_j·w), with θ̇_j and ∇θ_j·w as directional differences.
  const double step = 1e-6;
  double expected = 0.0;
  for (int j = 0; j + 1 < chain.links(); ++j) {
    const auto along = [&](const Vector& direction) {
      return (chain.jointAngle(state.q + step * direction, j) - chain.jointAngle(state.q - step * direction, j)) /
             (2 * step);
    };
    expected += damping * along(state.v) * along(w);
  }
  const double got = (h_moving - h_rest).dot(w);
  INFO("expected " << expected << ", got " << got);
  CHECK(std::abs(expected) > 0.1);
  CHECK(std::abs(got - expected) < 1e-6 * std::max(1.0, std::abs(expected)));
}

TEST_CASE("spring_chain: checkModel passes, conservative bias included, and evaluateTerms gives the per-term bits",
          "[models][spring_chain]") {
  const SpringChain chain = springChain(6, 25.0, 0.0);
  std::mt19937_64 rng(2026120103);
  std::vector<State> states;
  for (int s = 0; s < 3; ++s) states.push_back(bentState(chain, rng));
  ModelCheckOptions options;
  options.check_conservative_bias = true;
  const ModelCheckReport report = checkModel(chain, states, options);
  INFO(report.describe());
  CHECK(report.ok());

  const SpringChain damped = springChain(6, 25.0, 2.0);
  const State& state = states.front();
  Vector h(chain.nq()), phi(chain.nc()), gamma(chain.nc()), phi_t(chain.nc());
  Matrix J(chain.nc(), chain.nq());
  Vector no_sparse_values;
  ModelTermsOutput out{h, phi, J, no_sparse_values, gamma, phi_t};
  damped.evaluateTerms(state.q, state.v, 0.3, out);
  Vector h_ref(chain.nq());
  damped.bias(state.q, state.v, 0.3, h_ref);
  CHECK((h.array() == h_ref.array()).all());
}

TEST_CASE("spring_chain: rk4 at a small step conserves the energy, and without springs it is the pendulum chain",
          "[models][spring_chain]") {
  const SpringChain chain = springChain(4, 50.0, 0.0);
  State start = chain.initialState(0.5);
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 2e-4;
  options.steps = 2500;  // 0.5 s; the fastest bending mode has dt·ω ≈ 0.02 here
  options.stabilization = Stabilization::none();  // feedback would exchange energy with the drift
  const auto energy = [&](ConstVectorRef q, ConstVectorRef v) {
    return chain.kineticEnergy(q, v) + chain.potentialEnergy(q, 0.0);
  };
  // Launch with a joint velocity: the tip particle moving across its link loads the last spring.
  const Eigen::Vector3d d = chain.tip(start.q) - start.q.segment<3>(3 * chain.links() - 6);
  start.v.segment<3>(3 * chain.links() - 3) = 2.0 * Eigen::Vector3d(-d.y(), d.x(), 0.0) / d.norm();
  const double e0 = energy(start.q, start.v);
  double worst = 0.0, biggest_angle = 0.0;
  const Summary summary = simulate(chain, start, options, [&](double, ConstVectorRef q, ConstVectorRef v,
                                                              ConstVectorRef) {
    worst = std::max(worst, std::abs(energy(q, v) - e0));
    biggest_angle = std::max(biggest_angle, std::abs(chain.jointAngle(q, chain.links() - 2)));
  });
  INFO(summary.message);
  REQUIRE(summary.ok());
  INFO("energy " << e0 << " J, worst deviation " << worst << " J, largest last-joint angle " << biggest_angle);
  CHECK(biggest_angle > 0.05);  // the springs were loaded
  CHECK(worst < 1e-5 * chain.chain().energyScale());

  // k = c = 0: the same h as the plain chain, bit for bit.
  const SpringChain plain = springChain(4, 0.0, 0.0);
  Vector h_spring(plain.nq()), h_chain(plain.nq());
  plain.bias(start.q, start.v, 0.0, h_spring);
  plain.chain().bias(start.q, start.v, 0.0, h_chain);
  CHECK((h_spring.array() == h_chain.array()).all());
  CHECK_FALSE(plain.biasDependsOnState());
  CHECK(chain.biasDependsOnState());
}

TEST_CASE("spring_chain: bad parameters throw naming the field", "[models][spring_chain]") {
  SpringChainParams params;
  params.chain = PendulumChainParams::uniform(3);
  params.joint_stiffness = -1.0;
  CHECK_THROWS_WITH(SpringChain(params), Catch::Contains("joint_stiffness"));
  params.joint_stiffness = 1.0;
  params.joint_damping = std::nan("");
  CHECK_THROWS_WITH(SpringChain(params), Catch::Contains("joint_damping"));
  const SpringChain chain(SpringChainParams{PendulumChainParams::uniform(3), 1.0, 0.0});
  CHECK_THROWS_WITH(chain.jointAngle(chain.initialState(0.0).q, 2), Catch::Contains("joint"));
}

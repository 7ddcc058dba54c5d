// FourBar in joint coordinates against its particle twin: validation, assembly, derivatives,
// energies, instantaneous accelerations, trajectories (RK4 both KKT forms, CVODE BDF), energy
// conservation and the motor torque's work.
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>

#include "kktdae/autodiff/dual.hpp"
#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/four_bar.hpp"
#include "kktdae/system/derivative_check.hpp"
#include "mechanism_test_support.hpp"

using namespace kktdae;
using Catch::Contains;
using kktdae::testing::MechanismTrace;
using kktdae::testing::recordRun;
using kktdae::testing::twinPoints;

namespace {

void requireInvalid(const FourBarParams& params, const std::string& fragment) {
  INFO("expected a message containing: " << fragment);
  CHECK_THROWS_AS(FourBar(params), std::invalid_argument);
  CHECK_THROWS_WITH(FourBar(params), Contains(fragment));
  CHECK_THROWS_WITH(fourBarTwin(params), Contains(fragment));
  CHECK_THROWS_WITH(assembleFourBar(params, 0.3), Contains(fragment));
}

/// Consistent states spread over a full crank turn, both branches, crank rates in ±5 rad/s.
std::vector<State> consistentStates(const FourBarParams& params, int count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI), rate(-5.0, 5.0);
  std::vector<State> states;
  for (int k = 0; k < count; ++k) {
    const FourBarBranch branch = k % 2 == 0 ? FourBarBranch::Open : FourBarBranch::Crossed;
    states.push_back(fourBarState(params, angle(rng), rate(rng), branch));
  }
  return states;
}

MechanismPoints<double> jointPoints(const FourBarParams& params, ConstVectorRef q) { return fourBarPoints(params, q); }

/// Baseline run: 2 s from θ1 = 0.3 rad, θ̇1 = 4 rad/s, open branch, no stabilization.
SimulationOptions rk4(double dt, KktForm form) {
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = dt;
  options.steps = std::lround(2.0 / dt);
  options.observe_every = std::lround(0.01 / dt);  // compare on a 0.01 s grid
  options.kkt.form = form;
  return options;
}

}  // namespace

TEST_CASE("four_bar: parameters are validated with the field and value named", "[models][four_bar]") {
  CHECK_NOTHROW(FourBar());
  FourBarParams p;
  p.crank = 0.0;
  requireInvalid(p, "crank: must be finite and > 0, got 0");
  p = {};
  p.ground = -1.0;
  requireInvalid(p, "ground: must be finite and > 0, got -1");
  p = {};
  p.coupler = NAN;
  requireInvalid(p, "coupler: must be finite and > 0, got nan");
  p = {};
  p.rocker = INFINITY;
  requireInvalid(p, "rocker: must be finite and > 0, got inf");
  p = {};
  p.mass_b = 0.0;
  requireInvalid(p, "mass_b: must be finite and > 0, got 0");
  p = {};
  p.mass_c = -2.0;
  requireInvalid(p, "mass_c: must be finite and > 0, got -2");
  p = {};
  p.mass_p = 0.0;
  requireInvalid(p, "mass_p: must be finite and > 0, got 0");
  p = {};
  p.point_normal = 0.0;
  requireInvalid(p, "point_normal: must be finite and non-zero (P off the coupler line BC), got 0");
  p = {};
  p.point_along = NAN;
  requireInvalid(p, "point_along: must be finite, got nan");
  p = {};
  p.gravity = -9.81;
  requireInvalid(p, "gravity: must be finite and >= 0, got -9.81");
}

TEST_CASE("four_bar: assembly closes the loop on the named branch and refuses angles where it cannot",
          "[models][four_bar]") {
  const FourBarParams params;
  const FourBar model(params);
  for (int k = 0; k < 24; ++k) {
    const double crank_angle = -M_PI + 2.0 * M_PI * (k + 0.5) / 24.0;
    for (FourBarBranch branch : {FourBarBranch::Open, FourBarBranch::Crossed}) {
      const State state = fourBarState(params, crank_angle, 2.5, branch, 0.7);
      INFO("theta1 " << crank_angle << (branch == FourBarBranch::Open ? " open" : " crossed"));
      CHECK(state.t == 0.7);
      CHECK(state.q[0] == crank_angle);
      CHECK(state.v[0] == 2.5);
      Eigen::Vector2d phi;
      Eigen::MatrixXd J(2, 3);
      model.constraint(state.q, 0.0, phi);
      model.constraintJacobian(state.q, 0.0, J);
      CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-14);            // lengths O(1–4) m: rounding only
      CHECK((J * state.v).lpNorm<Eigen::Infinity>() < 1e-13);  // |J q̇| terms O(10) m/s
      // The branch is the side of B→D that C is on.
      const MechanismPoints<double> x = fourBarPoints(params, state.q);
      const Eigen::Vector2d bd = Eigen::Vector2d(params.ground, 0.0) - x.b, bc = x.c - x.b;
      const double side = bd[0] * bc[1] - bd[1] * bc[0];
      CHECK((branch == FourBarBranch::Open ? side > 0.0 : side < 0.0));
    }
  }
  // Not Grashof: with a = 3, g = 4, b = c = 2, |BD| = √(25 − 24 cos θ1) exceeds b + c = 4 for
  // cos θ1 < 3/8; at θ1 = 0 it is 1, inside [0, 4].
  FourBarParams short_links;
  short_links.crank = 3.0;
  short_links.coupler = 2.0;
  short_links.rocker = 2.0;
  CHECK_NOTHROW(assembleFourBar(short_links, 0.0));
  CHECK_THROWS_AS(assembleFourBar(short_links, M_PI), std::invalid_argument);
  CHECK_THROWS_WITH(assembleFourBar(short_links, M_PI),
                    Contains("crank_angle: the four-bar cannot close at 3.141592653589793 rad: |BD| = 7 m is outside "
                             "[|b - c|, b + c] = [0, 4] m"));
  CHECK_THROWS_WITH(fourBarState(short_links, 2.0, 1.0), Contains("the four-bar cannot close at 2 rad"));
  // Coupler too long: |BD| = √(17 − 8 cos θ1) ∈ [3, 5] falls below b − c = 3.5 for cos θ1 > 0.59.
  FourBarParams long_coupler;
  long_coupler.coupler = 4.5;
  long_coupler.rocker = 1.0;
  CHECK_NOTHROW(assembleFourBar(long_coupler, 1.5));
  CHECK_THROWS_WITH(assembleFourBar(long_coupler, 0.5), Contains("is outside [|b - c|, b + c] = [3.5, 5.5] m"));
  CHECK_THROWS_WITH(assembleFourBar(params, NAN), Contains("crank_angle: must be finite, got nan"));
  CHECK_THROWS_WITH(fourBarState(params, 0.0, INFINITY), Contains("crank_rate: must be finite, got inf"));
  // At a change point coupler and rocker line up: the rates are undetermined.
  FourBarParams change_point;  // b + c = |BD| at θ1 = π: C on the line, coupler and rocker parallel
  change_point.crank = 1.0;
  change_point.coupler = 2.0;
  change_point.rocker = 3.0;
  CHECK_THROWS_WITH(fourBarState(change_point, M_PI, 1.0), Contains("the coupler and the rocker are parallel"));
}

TEST_CASE("four_bar: J and gamma of the joint model and of its twin pass checkDerivatives", "[models][four_bar]") {
  const FourBarParams params;
  const FourBar model(params);
  const ParticleSystem twin(fourBarTwin(params));
  for (const State& state : consistentStates(params, 6, 11)) {
    const DerivativeCheckReport joint = checkDerivatives(model, state.q, state.v, state.t);
    const State twin_state = fourBarTwinState(params, state);
    const DerivativeCheckReport particles = checkDerivatives(twin, twin_state.q, twin_state.v, twin_state.t);
    INFO("joint: " << joint.describe() << "\ntwin: " << particles.describe());
    // Central differences at step 6e-6 on smooth O(1–100) terms: about 1e-9 relative.
    CHECK(joint.worstRelativeError() < 1e-7);
    CHECK(particles.worstRelativeError() < 1e-7);
    // M must be SPD for the Schur form's Cholesky: the three point masses give every coordinate inertia.
    Eigen::Matrix3d M;
    model.massMatrix(state.q, M);
    CHECK(Eigen::LLT<Eigen::Matrix3d>(M).info() == Eigen::Success);
  }
}

TEST_CASE("four_bar: T and V equal the twin's at random consistent states to 1e-12", "[models][four_bar]") {
  const FourBarParams params;
  const FourBar model(params);
  const ParticleSystem twin(fourBarTwin(params));
  for (const State& state : consistentStates(params, 40, 7)) {
    const State twin_state = fourBarTwinState(params, state);
    // The twin's state is on its own manifold: the distances hold and the rates are tangent.
    Vector phi(twin.nc());
    Matrix J(twin.nc(), twin.nq());
    twin.constraint(twin_state.q, 0.0, phi);
    twin.constraintJacobian(twin_state.q, 0.0, J);
    CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-13);
    CHECK((J * twin_state.v).lpNorm<Eigen::Infinity>() < 1e-12);
    CHECK(std::abs(model.kineticEnergy(state.q, state.v) - twin.kineticEnergy(twin_state.q, twin_state.v)) < 1e-12);
    CHECK(std::abs(model.potentialEnergy(state.q, 0.0) - twin.potentialEnergy(twin_state.q, 0.0)) < 1e-12);
  }
}

TEST_CASE("four_bar: joint accelerations give the twin's point accelerations", "[models][four_bar]") {
  // B̈, C̈, P̈ = d²/ds² x(q + s q̇ + ½ s² q̈) at s = 0, from one nested dual sweep of the point map.
  using D = Dual<double>;
  using DD = Dual<D>;
  const FourBarParams params;
  const FourBar model(params);
  const ParticleSystem twin(fourBarTwin(params));
  KktWorkspace ws_joint(model), ws_twin(twin);
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    KktOptions options;
    options.form = form;
    for (const State& state : consistentStates(params, 20, 3)) {
      const State twin_state = fourBarTwinState(params, state);
      REQUIRE(solveAccelerations(model, 0.0, state.q, state.v, Vector::Zero(1), Stabilization::none(), options,
                                 ws_joint)
                  .ok());
      REQUIRE(solveAccelerations(twin, 0.0, twin_state.q, twin_state.v, Vector(), Stabilization::none(), options,
                                 ws_twin)
                  .ok());
      Eigen::Matrix<DD, 3, 1> q;
      for (int i = 0; i < 3; ++i) q[i] = DD(D(state.q[i], state.v[i]), D(state.v[i], ws_joint.qdd[i]));
      const MechanismPoints<DD> x = fourBarPoints(params, q);
      Vector joint_acceleration(6);
      joint_acceleration << x.b[0].derivative.derivative, x.b[1].derivative.derivative, x.c[0].derivative.derivative,
          x.c[1].derivative.derivative, x.p[0].derivative.derivative, x.p[1].derivative.derivative;
      // Both solves are exact to rounding amplified by the KKT conditioning: relative 1e-10.
      const double scale = std::max(1.0, ws_twin.qdd.lpNorm<Eigen::Infinity>());
      INFO(toString(form) << " joint " << joint_acceleration.transpose() << "\ntwin " << ws_twin.qdd.transpose());
      CHECK((joint_acceleration - ws_twin.qdd).lpNorm<Eigen::Infinity>() < 1e-10 * scale);
    }
  }
}

TEST_CASE("four_bar: joint model matches its particle twin (RK4, Schur and block)", "[models][four_bar]") {
  const FourBarParams params;
  const FourBar model(params);
  const ParticleSystem twin(fourBarTwin(params));
  const State start = fourBarState(params, 0.3, 4.0);
  const State twin_start = fourBarTwinState(params, start);
  auto joint_points = [&](ConstVectorRef q) { return jointPoints(params, q); };
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    double deviation[2];
    const double steps[2] = {2e-3, 1e-3};
    for (int k = 0; k < 2; ++k) {
      const MechanismTrace joint = recordRun(model, start, rk4(steps[k], form), joint_points);
      const MechanismTrace particles = recordRun(twin, twin_start, rk4(steps[k], form), twinPoints);
      deviation[k] = testing::maxPointDeviation(joint, particles);
      UNSCOPED_INFO("rk4 " << toString(form) << " dt " << steps[k] << ": max |x_joint - x_twin| = " << deviation[k]);
    }
    INFO(toString(form) << ": deviation at dt 2e-3 " << deviation[0] << ", at 1e-3 " << deviation[1]);
    // Both models are exact, so the deviation is the two runs' RK4 errors: measured 2.5e-7 m at
    // dt 2e-3 and 1.6e-8 m at 1e-3 (ratio 15.9, the 2⁴ of a fourth-order method), both forms.
    // The bound is 4× the measurement; the ratio test asks for order > 3.5.
    CHECK(deviation[0] < 1e-6);
    CHECK(deviation[1] < deviation[0] / 12.0);
  }
}

TEST_CASE("four_bar: joint model matches its particle twin (CVODE BDF)", "[models][four_bar]") {
  const FourBarParams params;
  const FourBar model(params);
  const ParticleSystem twin(fourBarTwin(params));
  const State start = fourBarState(params, 0.3, 4.0);
  auto joint_points = [&](ConstVectorRef q) { return jointPoints(params, q); };
  double previous = 0.0;
  for (double rtol : {1e-7, 1e-9}) {
    SimulationOptions options;
    options.integrator = Integrator::CvodeBdf;
    options.dt = 0.01;
    options.steps = 200;
    options.adaptive.rtol = rtol;
    options.adaptive.atol = 1e-2 * rtol;
    const MechanismTrace joint = recordRun(model, start, options, joint_points);
    const MechanismTrace particles = recordRun(twin, fourBarTwinState(params, start), options, twinPoints);
    const double deviation = testing::maxPointDeviation(joint, particles);
    INFO("cvode_bdf rtol " << rtol << ": max |x_joint - x_twin| = " << deviation << " m (steps " << joint.summary.steps
                           << " / " << particles.summary.steps << ")");
    // A local tolerance ε gives a global error C·ε (measured here: C = 450 at 1e-7, 15 at 1e-9),
    // so 1e3·ε bounds both, as in the adaptive integrators' own tests; 100× tighter must buy ≥ 5×.
    CHECK(deviation < 1e3 * rtol);
    if (previous > 0.0) CHECK(deviation < previous / 5.0);
    previous = deviation;
  }
}

TEST_CASE("four_bar: energy is conserved without input and a constant torque does work tau dtheta1 (RK4)",
          "[models][four_bar]") {
  const FourBarParams params;
  const FourBar model(params);
  const State start = fourBarState(params, 0.3, 4.0);
  auto joint_points = [&](ConstVectorRef q) { return jointPoints(params, q); };
  // E(t) − E(0) − τ Δθ1 is zero on the exact motion; RK4 leaves its own error, measured at dt 2e-3
  // and 1e-3: 4.0e-8 J and 2.6e-9 J without torque, 3.7e-6 J and 2.4e-7 J with τ = 6 N m (E0 = 76 J,
  // ratios 15.8 and 15.3: fourth order). Bounds: 4× the measurement at dt 2e-3, order > 3.5.
  const double torques[2] = {0.0, 6.0};
  const double bounds[2] = {2e-7, 1.5e-5};
  for (int case_index = 0; case_index < 2; ++case_index) {
    const double torque = torques[case_index];
    double error[2];
    const double steps[2] = {2e-3, 1e-3};
    for (int k = 0; k < 2; ++k) {
      SimulationOptions options = rk4(steps[k], KktForm::Schur);
      options.controller = [torque](double, ConstVectorRef, ConstVectorRef, VectorRef u) { u[0] = torque; };
      const MechanismTrace run = recordRun(model, start, options, joint_points);
      error[k] = testing::maxEnergyBalanceError(run, [&](std::size_t i) { return torque * (run.q[i][0] - run.q[0][0]); });
      UNSCOPED_INFO("rk4 dt " << steps[k] << " torque " << torque << ": max |E - E0 - tau dtheta1| = " << error[k]
                              << " J (E0 = " << run.energy[0] << " J, crank turned " << run.q.back()[0] - run.q[0][0]
                              << " rad)");
    }
    CHECK(error[0] < bounds[case_index]);
    CHECK(error[1] < error[0] / 12.0);
  }
}

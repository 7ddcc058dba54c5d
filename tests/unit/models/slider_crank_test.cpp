// SliderCrank in joint coordinates against its particle twin: validation, assembly, derivatives,
// energies, instantaneous accelerations, trajectories (RK4 both KKT forms, CVODE BDF), a constant
// slider force on both sides, energy conservation and the force's work.
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>

#include "kktdae/autodiff/dual.hpp"
#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/slider_crank.hpp"
#include "kktdae/system/derivative_check.hpp"
#include "mechanism_test_support.hpp"

using namespace kktdae;
using Catch::Contains;
using kktdae::testing::MechanismTrace;
using kktdae::testing::recordRun;
using kktdae::testing::twinPoints;

namespace {

void requireInvalid(const SliderCrankParams& params, const std::string& fragment) {
  INFO("expected a message containing: " << fragment);
  CHECK_THROWS_AS(SliderCrank(params), std::invalid_argument);
  CHECK_THROWS_WITH(SliderCrank(params), Contains(fragment));
  CHECK_THROWS_WITH(sliderCrankTwin(params), Contains(fragment));
  CHECK_THROWS_WITH(assembleSliderCrank(params, 0.3), Contains(fragment));
}

/// Consistent states spread over a full crank turn, both branches, crank rates in ±6 rad/s.
std::vector<State> consistentStates(const SliderCrankParams& params, int count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI), rate(-6.0, 6.0);
  std::vector<State> states;
  for (int k = 0; k < count; ++k) {
    const SliderCrankBranch branch = k % 2 == 0 ? SliderCrankBranch::Right : SliderCrankBranch::Left;
    states.push_back(sliderCrankState(params, angle(rng), rate(rng), branch));
  }
  return states;
}

MechanismPoints<double> jointPoints(const SliderCrankParams& params, ConstVectorRef q) {
  return sliderCrankPoints(params, q);
}

/// Baseline run: 2 s on RK4, observed on a 0.01 s grid, no stabilization.
SimulationOptions sliderCrankRk4(double dt, KktForm form) {
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = dt;
  options.steps = std::lround(2.0 / dt);
  options.observe_every = std::lround(0.01 / dt);
  options.kkt.form = form;
  return options;
}

/// u = F: a constant force on the slider along +x.
Controller constantInput(double value) {
  return [value](double, ConstVectorRef, ConstVectorRef, VectorRef u) { u[0] = value; };
}

}  // namespace

TEST_CASE("slider_crank: parameters are validated with the field and value named", "[models][slider_crank]") {
  CHECK_NOTHROW(SliderCrank());
  SliderCrankParams p;
  p.crank = 0.0;
  requireInvalid(p, "crank: must be finite and > 0, got 0");
  p = {};
  p.rod = -1.5;
  requireInvalid(p, "rod: must be finite and > 0, got -1.5");
  p = {};
  p.offset = NAN;
  requireInvalid(p, "offset: must be finite, got nan");
  p = {};
  p.mass_b = 0.0;
  requireInvalid(p, "mass_b: must be finite and > 0, got 0");
  p = {};
  p.mass_slider = INFINITY;
  requireInvalid(p, "mass_slider: must be finite and > 0, got inf");
  p = {};
  p.mass_p = -0.6;
  requireInvalid(p, "mass_p: must be finite and > 0, got -0.6");
  p = {};
  p.point_along = INFINITY;
  requireInvalid(p, "point_along: must be finite, got inf");
  p = {};
  p.point_normal = 0.0;
  requireInvalid(p, "point_normal: must be finite and non-zero (P off the rod line BC), got 0");
  p = {};
  p.gravity = NAN;
  requireInvalid(p, "gravity: must be finite and >= 0, got nan");
  CHECK_THROWS_WITH(sliderCrankTwin(SliderCrankParams{}, NAN), Contains("slider_force: must be finite, got nan"));
}

TEST_CASE("slider_crank: assembly closes the loop on the named branch and refuses angles where it cannot",
          "[models][slider_crank]") {
  const SliderCrankParams params;
  const SliderCrank model(params);
  for (int k = 0; k < 24; ++k) {
    const double crank_angle = -M_PI + 2.0 * M_PI * (k + 0.5) / 24.0;
    for (SliderCrankBranch branch : {SliderCrankBranch::Right, SliderCrankBranch::Left}) {
      const State state = sliderCrankState(params, crank_angle, -3.0, branch, 0.4);
      INFO("theta " << crank_angle << (branch == SliderCrankBranch::Right ? " right" : " left"));
      CHECK(state.t == 0.4);
      CHECK(state.q[0] == crank_angle);
      CHECK(state.v[0] == -3.0);
      Eigen::Vector2d phi;
      Eigen::MatrixXd J(2, 3);
      model.constraint(state.q, 0.0, phi);
      model.constraintJacobian(state.q, 0.0, J);
      CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-14);
      CHECK((J * state.v).lpNorm<Eigen::Infinity>() < 1e-13);
      const MechanismPoints<double> x = sliderCrankPoints(params, state.q);
      CHECK(x.c[1] == params.offset);
      CHECK((branch == SliderCrankBranch::Right ? x.c[0] > x.b[0] : x.c[0] < x.b[0]));
    }
  }
  // Guide at y = 2: the pin at θ = −π/2 is 2.5 m below it, out of the rod's reach (1.5 m); at
  // θ = π/2 it is exactly 1.5 m below, so the rod stands perpendicular to the guide.
  SliderCrankParams high_guide;
  high_guide.offset = 2.0;
  CHECK_THROWS_AS(assembleSliderCrank(high_guide, -M_PI / 2), std::invalid_argument);
  CHECK_THROWS_WITH(assembleSliderCrank(high_guide, -M_PI / 2),
                    Contains("crank_angle: the slider-crank cannot close at -1.5707963267948966 rad: the guide is 2.5 m "
                             "from the crank pin across it, more than the rod length 1.5 m"));
  CHECK_NOTHROW(assembleSliderCrank(high_guide, M_PI / 2));
  CHECK_THROWS_WITH(sliderCrankState(high_guide, M_PI / 2, 1.0), Contains("the rod is perpendicular to the guide"));
  CHECK_THROWS_WITH(sliderCrankState(high_guide, 0.0, 1.0), Contains("the slider-crank cannot close at 0 rad"));
  CHECK_THROWS_WITH(assembleSliderCrank(params, INFINITY), Contains("crank_angle: must be finite, got inf"));
  CHECK_THROWS_WITH(sliderCrankState(params, 0.0, NAN), Contains("crank_rate: must be finite, got nan"));
}

TEST_CASE("slider_crank: J and gamma of the joint model and of its twin pass checkDerivatives",
          "[models][slider_crank]") {
  const SliderCrankParams params;
  const SliderCrank model(params);
  const ParticleSystem twin(sliderCrankTwin(params, 3.0));
  for (const State& state : consistentStates(params, 6, 13)) {
    const DerivativeCheckReport joint = checkDerivatives(model, state.q, state.v, state.t);
    const State twin_state = sliderCrankTwinState(params, state);
    const DerivativeCheckReport particles = checkDerivatives(twin, twin_state.q, twin_state.v, twin_state.t);
    INFO("joint: " << joint.describe() << "\ntwin: " << particles.describe());
    CHECK(joint.worstRelativeError() < 1e-7);  // central differences: about 1e-9 on these terms
    CHECK(particles.worstRelativeError() < 1e-7);
    Eigen::Matrix3d M;
    model.massMatrix(state.q, M);
    CHECK(Eigen::LLT<Eigen::Matrix3d>(M).info() == Eigen::Success);
  }
}

TEST_CASE("slider_crank: T and V equal the twin's at random consistent states to 1e-12", "[models][slider_crank]") {
  const SliderCrankParams params;
  const SliderCrank model(params);
  const ParticleSystem twin(sliderCrankTwin(params));
  for (const State& state : consistentStates(params, 40, 17)) {
    const State twin_state = sliderCrankTwinState(params, state);
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

TEST_CASE("slider_crank: joint accelerations give the twin's point accelerations, with a slider force",
          "[models][slider_crank]") {
  using D = Dual<double>;
  using DD = Dual<D>;
  const SliderCrankParams params;
  const double force = -7.5;
  const SliderCrank model(params);
  const ParticleSystem twin(sliderCrankTwin(params, force));
  KktWorkspace ws_joint(model), ws_twin(twin);
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    KktOptions options;
    options.form = form;
    for (const State& state : consistentStates(params, 20, 5)) {
      const State twin_state = sliderCrankTwinState(params, state);
      REQUIRE(solveAccelerations(model, 0.0, state.q, state.v, Vector::Constant(1, force), Stabilization::none(),
                                 options, ws_joint)
                  .ok());
      REQUIRE(solveAccelerations(twin, 0.0, twin_state.q, twin_state.v, Vector(), Stabilization::none(), options,
                                 ws_twin)
                  .ok());
      // B̈, C̈, P̈ = d²/ds² x(q + s q̇ + ½ s² q̈) at s = 0, one nested dual sweep of the point map.
      Eigen::Matrix<DD, 3, 1> q;
      for (int i = 0; i < 3; ++i) q[i] = DD(D(state.q[i], state.v[i]), D(state.v[i], ws_joint.qdd[i]));
      const MechanismPoints<DD> x = sliderCrankPoints(params, q);
      Vector joint_acceleration(6);
      joint_acceleration << x.b[0].derivative.derivative, x.b[1].derivative.derivative, x.c[0].derivative.derivative,
          x.c[1].derivative.derivative, x.p[0].derivative.derivative, x.p[1].derivative.derivative;
      const double scale = std::max(1.0, ws_twin.qdd.lpNorm<Eigen::Infinity>());
      INFO(toString(form) << " joint " << joint_acceleration.transpose() << "\ntwin " << ws_twin.qdd.transpose());
      CHECK((joint_acceleration - ws_twin.qdd).lpNorm<Eigen::Infinity>() < 1e-10 * scale);
    }
  }
}

TEST_CASE("slider_crank: joint model matches its particle twin (RK4, Schur and block), free and with a slider force",
          "[models][slider_crank]") {
  const SliderCrankParams params;
  const SliderCrank model(params);
  const State start = sliderCrankState(params, 0.3, 5.0);
  auto joint_points = [&](ConstVectorRef q) { return jointPoints(params, q); };
  // The deviation is the two runs' RK4 errors: measured at dt 2e-3 and 1e-3, 2.9e-8 and 1.8e-9 m
  // free, 8.9e-7 and 5.6e-8 m with F = −7.5 N (ratios 16.0 and 15.9: fourth order), identical in
  // both forms. Bounds: 4× the measurement at dt 2e-3; the ratio test asks for order > 3.5.
  const double forces[2] = {0.0, -7.5};
  const double bounds[2] = {1.2e-7, 3.6e-6};
  for (int case_index = 0; case_index < 2; ++case_index) {
    const double force = forces[case_index];
    const ParticleSystem twin(sliderCrankTwin(params, force));
    const State twin_start = sliderCrankTwinState(params, start);
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      double deviation[2];
      const double steps[2] = {2e-3, 1e-3};
      for (int k = 0; k < 2; ++k) {
        SimulationOptions options = sliderCrankRk4(steps[k], form);
        const MechanismTrace particles = recordRun(twin, twin_start, options, twinPoints);
        options.controller = constantInput(force);
        const MechanismTrace joint = recordRun(model, start, options, joint_points);
        deviation[k] = testing::maxPointDeviation(joint, particles);
        UNSCOPED_INFO("rk4 " << toString(form) << " force " << force << " dt " << steps[k]
                             << ": max |x_joint - x_twin| = " << deviation[k]);
      }
      INFO(toString(form) << " force " << force << ": deviation at dt 2e-3 " << deviation[0] << ", at 1e-3 "
                          << deviation[1]);
      CHECK(deviation[0] < bounds[case_index]);
      CHECK(deviation[1] < deviation[0] / 12.0);
    }
  }
}

TEST_CASE("slider_crank: joint model matches its particle twin (CVODE BDF)", "[models][slider_crank]") {
  const SliderCrankParams params;
  const SliderCrank model(params);
  const ParticleSystem twin(sliderCrankTwin(params));
  const State start = sliderCrankState(params, 0.3, 5.0);
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
    const MechanismTrace particles = recordRun(twin, sliderCrankTwinState(params, start), options, twinPoints);
    const double deviation = testing::maxPointDeviation(joint, particles);
    INFO("cvode_bdf rtol " << rtol << ": max |x_joint - x_twin| = " << deviation << " m (steps " << joint.summary.steps
                           << " / " << particles.summary.steps << ")");
    // C·ε with C measured at 410 (1e-7) and 16 (1e-9); the same 1e3·ε bound and 5× rule as the four-bar.
    CHECK(deviation < 1e3 * rtol);
    if (previous > 0.0) CHECK(deviation < previous / 5.0);
    previous = deviation;
  }
}

TEST_CASE("slider_crank: energy is conserved without input and a constant slider force does work F ds (RK4)",
          "[models][slider_crank]") {
  const SliderCrankParams params;
  const SliderCrank model(params);
  const State start = sliderCrankState(params, 0.3, 5.0);
  auto joint_points = [&](ConstVectorRef q) { return jointPoints(params, q); };
  // E(t) − E(0) − F Δs is zero on the exact motion; RK4 leaves its own error, measured at dt 2e-3
  // and 1e-3: 6.4e-8 and 4.0e-9 J free, 3.4e-8 and 2.1e-9 J with F = −7.5 N (E0 = 12 J, ratios 15.8
  // and 15.7: fourth order). Bounds: 4× the measurement at dt 2e-3, order > 3.5.
  const double forces[2] = {0.0, -7.5};
  const double bounds[2] = {2.5e-7, 1.5e-7};
  for (int case_index = 0; case_index < 2; ++case_index) {
    const double force = forces[case_index];
    double error[2];
    const double steps[2] = {2e-3, 1e-3};
    for (int k = 0; k < 2; ++k) {
      SimulationOptions options = sliderCrankRk4(steps[k], KktForm::Schur);
      options.controller = constantInput(force);
      const MechanismTrace run = recordRun(model, start, options, joint_points);
      error[k] = testing::maxEnergyBalanceError(run, [&](std::size_t i) { return force * (run.q[i][2] - run.q[0][2]); });
      UNSCOPED_INFO("rk4 dt " << steps[k] << " force " << force << ": max |E - E0 - F ds| = " << error[k] << " J (E0 = "
                              << run.energy[0] << " J, crank turned " << run.q.back()[0] - run.q[0][0] << " rad)");
    }
    CHECK(error[0] < bounds[case_index]);
    CHECK(error[1] < error[0] / 12.0);
  }
}

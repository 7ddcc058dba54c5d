// FourBar in joint coordinates against its particle twin: validation, assembly, derivatives,
// energies, instantaneous accelerations, trajectories (RK4 both KKT forms, CVODE BDF), energy
// conservation and the motor torque's work; then KktOptions::rank_deficiency in joint
// coordinates: a parallelogram four-bar through its flat (change-point) configuration, and loops
// closed twice.
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <random>

#include "support/pendulum_reference.hpp"
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

// ---------------------------------------------------------------------------------------------
// Rank deficiency in joint coordinates (KktOptions::rank_deficiency, docs/defining-models.md
// § "Redundant constraints and singular configurations").

namespace {

/// A parallelogram four-bar, crank = rocker = 1 m, coupler = ground = 2 m, the default masses.
/// A change-point linkage (a + b = c + g): at θ1 = 0 and π all four bars lie on the x axis,
/// φ's x row has a zero gradient and J (2×3) has rank 1. On its parallelogram branch θ2 = 0 and
/// θ3 = θ1: the coupler translates, B, C and P all move like the crank pin, and
/// T = ½ m a² θ̇1², V = m g a sin θ1 (m = m_B + m_C + m_P), so θ̈1 = −(g/a) cos θ1 exactly.
FourBarParams parallelogramParams() {
  FourBarParams p;
  p.ground = 2.0;
  p.crank = 1.0;
  p.coupler = 2.0;
  p.rocker = 1.0;
  return p;
}

/// On the parallelogram branch at crank angle θ and rate θ̇: q = (θ, 0, θ), q̇ = (θ̇, 0, θ̇).
/// (fourBarState() refuses θ = 0 and π, where the coupler and the rocker are parallel.)
State parallelogramState(double theta, double theta_dot) {
  State state;
  state.q = Eigen::Vector3d(theta, 0.0, theta);
  state.v = Eigen::Vector3d(theta_dot, 0.0, theta_dot);
  return state;
}

/// θ(t_end) of the parallelogram's crank: a pendulum of length a (tests/support).
double pendulumAngle(const FourBarParams& p, double theta, double theta_dot, double t_end) {
  return testing::pendulumAngle(p.gravity / p.crank, theta, theta_dot, t_end);
}

/// The parallelogram's exact q̈ at crank angle θ: (−(g/a) cos θ, 0, −(g/a) cos θ), whatever θ̇.
Eigen::Vector3d parallelogramAcceleration(const FourBarParams& p, double theta) {
  const double crank = -p.gravity / p.crank * std::cos(theta);
  return Eigen::Vector3d(crank, 0.0, crank);
}

KktOptions policy(KktForm form, RankDeficiencyPolicy rank_deficiency) {
  KktOptions options;
  options.form = form;
  options.rank_deficiency = rank_deficiency;
  return options;
}

/// FourBar with its loop closure written twice (φ rows 2, 3 repeat rows 0, 1): the same
/// mechanism, nc 4, rank 2.
class FourBarLoopTwice final : public LagrangianSystem<FourBarLoopTwice> {
 public:
  explicit FourBarLoopTwice(const FourBarParams& params) : LagrangianSystem(3, 4), four_bar_(params) {}
  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar& t) const {
    return four_bar_.kinetic<Scalar>(q, v, t);
  }
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar& t) const {
    return four_bar_.potential<Scalar>(q, t);
  }
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> out) const {
    four_bar_.phi<Scalar>(q, t, out.head(2));
    out.tail(2) = out.head(2);
  }
  std::string name() const override { return "four_bar_loop_twice"; }

 private:
  FourBar four_bar_;
};

/// The parallelogram of parallelogramParams() with a third crank E–F of the same length a, E =
/// (1, 0.5) on the ground and F = B + f on the coupler, f = (1, 0.5) in the coupler's frame (x
/// along B→C): q = (θ1, θ2, θ3, θ4), θ4 the third crank's angle, and a point mass m_F = 0.5 kg at
/// F = E + a e(θ4) besides the four-bar's B, C, P. φ: the four-bar's loop A→B→C→D (rows 0, 1)
/// and the loop A→B→F→E, a e(θ1) + R(θ2) f − a e(θ4) − E (rows 2, 3). The third crank moves with
/// the other two, so the second loop removes one freedom and adds two rows: nc 4, rank 3.
/// `closed_once` keeps only row 2 (its x row; row 3's gradient is the dependent one), nc 3 and
/// full rank away from sin θ1 = 0: the same mechanism, the reference.
class ThirdCrankParallelogram final : public LagrangianSystem<ThirdCrankParallelogram> {
 public:
  static constexpr double kMassF = 0.5;
  explicit ThirdCrankParallelogram(bool closed_twice)
      : LagrangianSystem(4, closed_twice ? 4 : 3), four_bar_(parallelogramParams()), closed_twice_(closed_twice) {}
  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar& t) const {
    const double a = four_bar_.params().crank;
    return four_bar_.kinetic<Scalar>(q.head(3), v.head(3), t) + 0.5 * kMassF * a * a * v[3] * v[3];
  }
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar& t) const {
    using std::sin;
    const FourBarParams& p = four_bar_.params();
    return four_bar_.potential<Scalar>(q.head(3), t) + p.gravity * kMassF * (kPivotE[1] + p.crank * sin(q[3]));
  }
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> out) const {
    four_bar_.phi<Scalar>(q.head(3), t, out.head(2));
    const double a = four_bar_.params().crank;
    const PlanarPoint<Scalar> loop = a * unitVector<Scalar>(q[0]) + kCouplerF[0] * unitVector<Scalar>(q[1]) +
                                     kCouplerF[1] * unitNormal<Scalar>(q[1]) - a * unitVector<Scalar>(q[3]);
    out[2] = loop[0] - kPivotE[0];
    if (closed_twice_) out[3] = loop[1] - kPivotE[1];
  }
  std::string name() const override { return closed_twice_ ? "parallelogram_closed_twice" : "parallelogram_closed_once"; }

  /// On the parallelogram branch at crank angle θ and rate θ̇: q = (θ, 0, θ, θ).
  static State state(double theta, double theta_dot) {
    State s;
    s.q = Eigen::Vector4d(theta, 0.0, theta, theta);
    s.v = Eigen::Vector4d(theta_dot, 0.0, theta_dot, theta_dot);
    return s;
  }

 private:
  static inline const Eigen::Vector2d kPivotE{1.0, 0.5};
  static inline const Eigen::Vector2d kCouplerF{1.0, 0.5};
  FourBar four_bar_;
  bool closed_twice_;
};

}  // namespace

TEST_CASE("four_bar: a change-point linkage at its flat configuration: Fail names the row, the policies drop "
          "a force the branch needs",
          "[models][four_bar][singular]") {
  const FourBarParams params = parallelogramParams();
  const FourBar model(params);
  const double omega = 1.3 * 2.0 * std::sqrt(params.gravity / params.crank);  // enough to revolve
  const Vector u = Vector::Zero(1);
  KktWorkspace ws(model);

  SECTION("approaching it, the exact solve follows the branch while lambda_x grows like 1/theta1") {
    // Near θ1 = 0 the x row's gradient is sin θ1 (−a, 0, c): its multiplier must grow like
    // 1/θ1 for the finite generalized force λ_x sin θ1 (−a, 0, c) that keeps the coupler, whose
    // point P sits off its line, from turning. Measured λ_x sin θ1 = 18.22, 18.53, 18.565, 18.568
    // at θ1 = 1e-2, 1e-3, 1e-4, 1e-6 rad, q̈ on the branch to 1e-15 relative, rcond 4.3e-13 at 1e-6.
    double limit = 0.0;
    for (double theta : {1e-6, 1e-4, 1e-2}) {
      const State near = parallelogramState(theta, omega);
      const KktResult result = solveAccelerations(model, 0.0, near.q, near.v, u, {}, KktOptions{}, ws);
      INFO("theta1 " << theta << ": " << result.message << " rcond " << result.rcond << ", lambda "
                     << ws.lambda.transpose());
      REQUIRE(result.ok());
      CHECK_FALSE(result.rank_deficient);
      const Eigen::Vector3d exact = parallelogramAcceleration(params, theta);
      CHECK((ws.qdd - exact).lpNorm<Eigen::Infinity>() < 1e-12 * exact.lpNorm<Eigen::Infinity>());
      const double force = ws.lambda[0] * std::sin(theta);
      if (limit == 0.0) limit = force;
      CHECK(std::abs(force - limit) < 0.02 * std::abs(limit));
    }
    CHECK(limit == Approx(18.568).epsilon(1e-3));
  }

  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    SECTION(std::string("exactly flat, ") + std::string(toString(form))) {
      const State flat = parallelogramState(0.0, omega);
      // φ's x row: −a sin θ1, −b sin θ2, c sin θ3 = 0 exactly; J has rank 1.
      const KktResult failed =
          solveAccelerations(model, 0.0, flat.q, flat.v, u, {}, policy(form, RankDeficiencyPolicy::Fail), ws);
      INFO(failed.message);
      CHECK(failed.status == KktStatus::Singular);
      CHECK_THAT(failed.message, Contains("constraint rows are dependent"));
      CHECK(failed.offending_rows == std::vector<int>{0});
      CHECK(ws.J.row(0).isZero(0.0));

      // Reference: the KKT system without the vanishing row, [M −J₁ᵀ; J₁ 0], dense.
      Eigen::Matrix4d kkt = Eigen::Matrix4d::Zero();
      kkt.topLeftCorner<3, 3>() = ws.M;
      kkt.block<3, 1>(0, 3) = -ws.J.row(1).transpose();
      kkt.block<1, 3>(3, 0) = ws.J.row(1);
      Eigen::Vector4d rhs;
      rhs << ws.force, -ws.gamma[1];
      const Eigen::Vector4d without_row = kkt.fullPivLu().solve(rhs);

      const KktResult minimum_norm =
          solveAccelerations(model, 0.0, flat.q, flat.v, u, {}, policy(form, RankDeficiencyPolicy::MinimumNorm), ws);
      REQUIRE(minimum_norm.ok());
      CHECK(minimum_norm.rank_deficient);
      CHECK(minimum_norm.rank == 1);
      REQUIRE(ws.qdd.allFinite());
      CHECK(ws.lambda[0] == 0.0);  // the row with no gradient gets no multiplier
      CHECK(ws.gamma[0] == 0.0);   // and its equation 0·q̈ = −γ_x is consistent
      CHECK((ws.qdd - without_row.head<3>()).lpNorm<Eigen::Infinity>() < 1e-12 * without_row.lpNorm<Eigen::Infinity>());
      CHECK(ws.lambda[1] == Approx(without_row[3]).epsilon(1e-12));
      // That is not the branch's q̈ = (−g/a, 0, −g/a): the finite limit of λ_x sin θ1 above is
      // lost with the row. Measured q̈ = (6.15, −13.30, −20.45) rad/s², 16 off.
      const Eigen::Vector3d branch = parallelogramAcceleration(params, 0.0);
      const Vector minimum_norm_qdd = ws.qdd;
      CHECK((ws.qdd - branch).lpNorm<Eigen::Infinity>() > 10.0);

      const KktResult regularized =
          solveAccelerations(model, 0.0, flat.q, flat.v, u, {}, policy(form, RankDeficiencyPolicy::Regularize), ws);
      REQUIRE(regularized.ok());
      CHECK(regularized.rank_deficient);
      CHECK(regularized.rank == -1);
      REQUIRE(ws.qdd.allFinite());
      // b_x = 0, so (A + εI) λ = b gives λ_x = 0 too and only shrinks λ_y by O(ε/A_yy).
      CHECK((ws.qdd - minimum_norm_qdd).lpNorm<Eigen::Infinity>() < 1e-6 * minimum_norm_qdd.lpNorm<Eigen::Infinity>());
    }
    SECTION(std::string("1e-7 rad from flat, ") + std::string(toString(form))) {
      const State near = parallelogramState(1e-7, omega);
      const KktResult failed =
          solveAccelerations(model, 0.0, near.q, near.v, u, {}, policy(form, RankDeficiencyPolicy::Fail), ws);
      INFO(failed.message);
      // Measured rcond 4.3e-15 (Schur), 3.2e-15 (block).
      CHECK(failed.status == KktStatus::IllConditioned);
      CHECK_THAT(failed.message, Contains("ill-conditioned"));
      CHECK(failed.offending_rows == std::vector<int>{0});

      const KktResult minimum_norm =
          solveAccelerations(model, 0.0, near.q, near.v, u, {}, policy(form, RankDeficiencyPolicy::MinimumNorm), ws);
      REQUIRE(minimum_norm.ok());
      CHECK(minimum_norm.rank_deficient);
      CHECK(minimum_norm.rank == 1);
      CHECK(ws.qdd.allFinite());
      CHECK((ws.qdd - parallelogramAcceleration(params, 1e-7)).lpNorm<Eigen::Infinity>() > 10.0);  // the same 16
    }
  }
}

TEST_CASE("four_bar: a change-point linkage revolving through its flat configurations (minimum norm, projection)",
          "[models][four_bar][singular]") {
  const FourBarParams params = parallelogramParams();
  const FourBar model(params);
  const double omega = 1.3 * 2.0 * std::sqrt(params.gravity / params.crank);  // revolves: passes θ1 = 0 and π

  struct Run {
    Summary summary;
    double worst = 0.0;       ///< max |θ1 − θ1_exact| on a 0.5 s grid [rad]
    double branch_gap = 0.0;  ///< max |θ2|, |θ3 − θ1| (wrapped): 0 on the parallelogram branch
    bool finite = true;
  };
  auto run = [&](double theta0, RankDeficiencyPolicy rank_deficiency, double min_rcond) {
    SimulationOptions options;
    options.integrator = Integrator::Rk4;
    options.dt = 1e-3;
    options.steps = 6000;
    options.stabilization.project_after_step = true;
    options.kkt.rank_deficiency = rank_deficiency;
    options.kkt.min_rcond = min_rcond;
    Run result;
    result.summary = simulate(model, parallelogramState(theta0, omega), options,
                              [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                result.finite = result.finite && q.allFinite() && v.allFinite() && lambda.allFinite();
                                result.branch_gap = std::max({result.branch_gap, std::abs(std::remainder(q[1], 2 * M_PI)),
                                                              std::abs(std::remainder(q[2] - q[0], 2 * M_PI))});
                                if (std::abs(std::remainder(t, 0.5)) < 1e-9) {
                                  result.worst = std::max(result.worst, std::abs(q[0] - pendulumAngle(params, theta0, omega, t)));
                                }
                              });
    return result;
  };

  SECTION("from hanging, the default threshold never calls the policy: the exact solves are right") {
    // Steps land as close as rcond 1.0e-8 to the flat configurations, where the exact solve is
    // still accurate (above): measured 3.7e-11 rad from the exact pendulum over six seconds.
    const Run r = run(-M_PI / 2, RankDeficiencyPolicy::MinimumNorm, 1e-13);
    INFO(r.summary.briefReport() << " | " << r.summary.notes << " | worst " << r.worst);
    REQUIRE(r.summary.ok());
    CHECK(r.summary.rank_deficient_solves == 0);
    CHECK(r.summary.min_rcond < 1e-7);
    CHECK(r.branch_gap < 1e-9);
    CHECK(r.worst < 1e-9);
  }

  SECTION("starting exactly flat: Fail stops at once, minimum norm answers one solve and costs 2e-4 rad") {
    const Run stopped = run(0.0, RankDeficiencyPolicy::Fail, 1e-13);
    INFO(stopped.summary.briefReport());
    CHECK(stopped.summary.status == RunStatus::KktFailure);
    CHECK(stopped.summary.failed_step == 0);
    CHECK_THAT(stopped.summary.message, Contains("constraint rows are dependent; offending constraint rows [0]"));

    const Run r = run(0.0, RankDeficiencyPolicy::MinimumNorm, 1e-13);
    INFO(r.summary.briefReport() << " | " << r.summary.notes << " | worst " << r.worst);
    REQUIRE(r.summary.ok());
    CHECK(r.finite);
    CHECK(r.summary.rank_deficient_solves == 1);  // the initial state's, then never again
    CHECK(r.summary.min_rcond == 0.0);
    CHECK(r.summary.min_constraint_rank == 1);
    CHECK_THAT(r.summary.notes, Contains("first at t = 0 s (rcond 0, lowest rank 1 of 2), dependent rows [0]"));
    CHECK(r.branch_gap < 1e-9);
    // The one wrong q̈ (16 rad/s² off, above) in the first stage: measured 2.0e-4 rad.
    CHECK(r.worst < 1e-3);

    // 1e-6 rad off the flat configuration the exact solve is possible (rcond 4.3e-13) and right:
    // measured 5.4e-12 rad from its own exact pendulum, with the default options.
    const Run offset = run(1e-6, RankDeficiencyPolicy::Fail, 1e-13);
    INFO(offset.summary.briefReport() << " | worst " << offset.worst);
    REQUIRE(offset.summary.ok());
    CHECK(offset.worst < 1e-9);
  }

  SECTION("min_rcond 1e-6: Fail stops at the first crossing, minimum norm keeps the branch but drifts 8e-5 rad") {
    const Run stopped = run(-M_PI / 2, RankDeficiencyPolicy::Fail, 1e-6);
    INFO(stopped.summary.briefReport());
    CHECK(stopped.summary.status == RunStatus::KktFailure);
    CHECK(stopped.summary.t_final < 0.25);  // the first flat configuration, t ≈ 0.2045 s
    CHECK_THAT(stopped.summary.message, Contains("ill-conditioned") && Contains("offending constraint rows [0]"));

    const Run r = run(-M_PI / 2, RankDeficiencyPolicy::MinimumNorm, 1e-6);
    INFO(r.summary.briefReport() << " | " << r.summary.notes << " | worst " << r.worst);
    REQUIRE(r.summary.ok());
    CHECK(r.finite);
    CHECK(r.summary.rank_deficient_solves > 0);  // measured 22 of 24 001
    CHECK(r.summary.min_rcond < 1e-6);
    CHECK(r.summary.min_constraint_rank == 1);
    CHECK_THAT(r.summary.notes, Contains("lowest rank 1 of 2"));
    CHECK(r.summary.max_phi_inf < 1e-10);
    CHECK(r.branch_gap < 1e-9);
    // Each of those solves drops the O(10) rad/s² the branch needs: measured 7.9e-5 rad, against
    // 3.7e-11 with the default threshold. Raising min_rcond helps only where λ stays bounded.
    CHECK(r.worst < 1e-3);
    CHECK(r.worst > 1e-6);
  }
}

TEST_CASE("four_bar: redundant: the loop closure written twice moves as FourBar and splits lambda equally",
          "[models][four_bar][redundant]") {
  const FourBarParams params;
  const FourBar once(params);
  const FourBarLoopTwice twice(params);
  const Vector u = Vector::Constant(1, 0.0);
  for (const State& state : consistentStates(params, 8, 5)) {
    KktWorkspace reference(once);
    REQUIRE(solveAccelerations(once, 0.0, state.q, state.v, u, {}, KktOptions{}, reference).ok());
    const Vector reference_force = reference.J.transpose() * reference.lambda;
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      INFO("q " << state.q.transpose() << ", " << toString(form));
      KktWorkspace ws(twice);
      const KktResult failed = solveAccelerations(twice, 0.0, state.q, state.v, Vector(), {}, policy(form, RankDeficiencyPolicy::Fail), ws);
      CHECK_FALSE(failed.ok());
      // Both copies of both rows carry the dependency: all four are named.
      CHECK(failed.offending_rows == std::vector<int>{0, 1, 2, 3});
      const KktResult result = solveAccelerations(twice, 0.0, state.q, state.v, Vector(), {}, policy(form, RankDeficiencyPolicy::MinimumNorm), ws);
      REQUIRE(result.ok());
      CHECK(result.rank_deficient);
      CHECK(result.rank == 2);
      const double scale = 1.0 + reference.qdd.lpNorm<Eigen::Infinity>();
      CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      CHECK((ws.J.transpose() * ws.lambda - reference_force).lpNorm<Eigen::Infinity>() <
            1e-12 * (1.0 + reference_force.lpNorm<Eigen::Infinity>()));
      // Minimum norm shares each force equally between the two copies of its row.
      const double lambda_scale = 1.0 + reference.lambda.lpNorm<Eigen::Infinity>();
      CHECK((ws.lambda.head(2) - 0.5 * reference.lambda).lpNorm<Eigen::Infinity>() < 1e-12 * lambda_scale);
      CHECK((ws.lambda.tail(2) - 0.5 * reference.lambda).lpNorm<Eigen::Infinity>() < 1e-12 * lambda_scale);
    }
  }
}

TEST_CASE("four_bar: redundant: a parallelogram closed twice by a third crank moves as when closed once",
          "[models][four_bar][redundant]") {
  const FourBarParams params = parallelogramParams();
  const ThirdCrankParallelogram once(false), twice(true);

  SECTION("one solve: minimum norm gives the exact q̈ and the non-redundant Jᵀλ") {
    for (double theta : {-2.1, -1.2, -0.4, 2.5}) {
      const State state = ThirdCrankParallelogram::state(theta, 1.3);
      const Eigen::Vector3d exact3 = parallelogramAcceleration(params, theta);
      const Vector exact = Eigen::Vector4d(exact3[0], 0.0, exact3[0], exact3[0]);
      KktWorkspace reference(once);
      REQUIRE(solveAccelerations(once, 0.0, state.q, state.v, Vector(), {}, KktOptions{}, reference).ok());
      const Vector reference_force = reference.J.transpose() * reference.lambda;
      const double scale = exact.lpNorm<Eigen::Infinity>();
      CHECK((reference.qdd - exact).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      for (KktForm form : {KktForm::Schur, KktForm::Block}) {
        INFO("theta " << theta << ", " << toString(form));
        KktWorkspace ws(twice);
        const KktResult failed = solveAccelerations(twice, 0.0, state.q, state.v, Vector(), {}, policy(form, RankDeficiencyPolicy::Fail), ws);
        INFO(failed.message);
        CHECK_FALSE(failed.ok());
        // The dependency runs through all four rows (both loops share the coupler): all named.
        CHECK(failed.offending_rows == std::vector<int>{0, 1, 2, 3});

        const KktResult minimum_norm = solveAccelerations(twice, 0.0, state.q, state.v, Vector(), {}, policy(form, RankDeficiencyPolicy::MinimumNorm), ws);
        REQUIRE(minimum_norm.ok());
        CHECK(minimum_norm.rank_deficient);
        CHECK(minimum_norm.rank == 3);
        const Vector force = ws.J.transpose() * ws.lambda;
        CHECK((ws.qdd - exact).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
        CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
        CHECK((force - reference_force).lpNorm<Eigen::Infinity>() < 1e-12 * (1.0 + reference_force.lpNorm<Eigen::Infinity>()));
        // λ has no component along null(Jᵀ), the direction in which it is not unique.
        Eigen::JacobiSVD<Matrix> svd(ws.J.transpose(), Eigen::ComputeFullV);
        const Vector null_direction = svd.matrixV().col(ws.nc - 1);
        CHECK((ws.J.transpose() * null_direction).norm() < 1e-12);
        CHECK(std::abs(null_direction.dot(ws.lambda)) < 1e-10 * (1.0 + ws.lambda.norm()));

        const KktResult regularized = solveAccelerations(twice, 0.0, state.q, state.v, Vector(), {}, policy(form, RankDeficiencyPolicy::Regularize), ws);
        REQUIRE(regularized.ok());
        CHECK(regularized.rank_deficient);
        CHECK((ws.qdd - exact).lpNorm<Eigen::Infinity>() < 1e-6 * scale);
      }
    }
  }

  SECTION("a run: RK4 under minimum norm follows the run closed once to round-off, and says so") {
    SimulationOptions options;
    options.integrator = Integrator::Rk4;
    options.dt = 2e-3;
    options.steps = 1000;
    const double theta0 = -M_PI / 2 + 0.6;  // swings between −π/2 ∓ 0.6: away from sin θ1 = 0
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      INFO(toString(form));
      options.kkt.form = form;
      options.kkt.rank_deficiency = RankDeficiencyPolicy::Fail;
      Matrix path_once(*options.steps + 1, 4), path_twice(*options.steps + 1, 4);
      long row = 0;
      const Summary reference = simulate(once, ThirdCrankParallelogram::state(theta0, 0.0), options,
                                         [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { path_once.row(row++) = q; });
      REQUIRE(reference.ok());
      CHECK(reference.rank_deficient_solves == 0);
      options.kkt.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
      row = 0;
      const Summary summary = simulate(twice, ThirdCrankParallelogram::state(theta0, 0.0), options,
                                       [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { path_twice.row(row++) = q; });
      INFO(summary.briefReport() << " | " << summary.notes);
      REQUIRE(summary.ok());
      CHECK(row == *options.steps + 1);
      CHECK((path_twice - path_once).lpNorm<Eigen::Infinity>() < 1e-12);
      CHECK(std::abs(path_twice(*options.steps, 0) - pendulumAngle(params, theta0, 0.0, 2.0)) < 1e-8);
      CHECK(summary.rank_deficient_solves == summary.kkt_solves);
      CHECK(summary.min_constraint_rank == 3);
      CHECK_THAT(summary.notes, Contains("rank-deficient KKT (minimum_norm)"));
      CHECK_THAT(summary.notes, Contains("dependent rows ["));
    }
  }
}


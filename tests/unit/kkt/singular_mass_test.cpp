// The block form with an M that is positive definite only on null(J): the heavy top in Euler
// parameters (M = 4GᵀJ_O G, singular along p) through LagrangianSystem. checkModel accepts it,
// the block form runs it to the published displacement, the Schur form refuses it by name,
// projection falls back to another metric, and an M indefinite on null(J) is still refused.
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <random>

#include "support/test_models.hpp"

using namespace kktdae;

namespace {

/// The heavy top of Brüls, Cardona and Arnold with q = p = (e₀, e₁, e₂, e₃), Ω = 2G(p)ṗ (body
/// frame), T = ½ ΩᵀJ_O Ω, V = −m g·R(p)X and φ = ½(pᵀp − 1). R(p) is written homogeneously
/// ((e₀² − eᵀe)I + 2eeᵀ + 2e₀ẽ), a rotation times |p|².
class EulerParameterTop final : public LagrangianSystem<EulerParameterTop> {
 public:
  EulerParameterTop() : LagrangianSystem(4, 1) {}

  template <typename Scalar>
  static Eigen::Matrix<Scalar, 3, 1> bodyRate(ConstVectorRefOf<Scalar> p, ConstVectorRefOf<Scalar> pd) {
    Eigen::Matrix<Scalar, 3, 1> w;
    w[0] = 2.0 * (-p[1] * pd[0] + p[0] * pd[1] + p[3] * pd[2] - p[2] * pd[3]);
    w[1] = 2.0 * (-p[2] * pd[0] - p[3] * pd[1] + p[0] * pd[2] + p[1] * pd[3]);
    w[2] = 2.0 * (-p[3] * pd[0] + p[2] * pd[1] - p[1] * pd[2] + p[0] * pd[3]);
    return w;
  }
  template <typename Scalar>
  static Eigen::Matrix<Scalar, 3, 3> rotation(ConstVectorRefOf<Scalar> p) {
    const Scalar e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
    Eigen::Matrix<Scalar, 3, 3> R;
    R << e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 - e0 * e3), 2.0 * (e1 * e3 + e0 * e2),
        2.0 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 - e0 * e1),
        2.0 * (e1 * e3 - e0 * e2), 2.0 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3;
    return R;
  }
  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar&) const {
    const Eigen::Matrix<Scalar, 3, 1> w = bodyRate<Scalar>(q, v);
    return 0.5 * (J_O[0] * w[0] * w[0] + J_O[1] * w[1] * w[1] + J_O[2] * w[2] * w[2]);
  }
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar&) const {
    // −m g·R X with X = (0, 1, 0) and g = (0, 0, −g): m g (R X)_z = m g R(2, 1).
    return mass * gravity * rotation<Scalar>(q)(2, 1);
  }
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    out[0] = 0.5 * (q.squaredNorm() - 1.0);
  }
  std::string name() const override { return "euler_parameter_top"; }

  /// The benchmark's start: p = (1, 0, 0, 0), ṗ = ½ Gᵀ Ω₀.
  static State start() {
    State s;
    s.q = Vector::Unit(4, 0);
    const Eigen::Vector3d w = HeavyTop::kInitialAngularVelocity;
    s.v = Vector(4);
    s.v << 0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2];  // ½ Gᵀ Ω at p = (1, 0, 0, 0)
    return s;
  }
  static Eigen::Vector3d displacement(ConstVectorRef q) {
    return rotation<double>(q) * Eigen::Vector3d::UnitY() - Eigen::Vector3d::UnitY();
  }

  static constexpr double mass = 15.0;
  static constexpr double gravity = 9.81;
  // J_O = J_c + m(|X|² I − X Xᵀ) with X = (0, 1, 0).
  const Eigen::Vector3d J_O{0.234375 + 15.0, 0.46875, 0.234375 + 15.0};
};

SimulationOptions rk4Options(KktForm form, double end_time) {
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-4;
  options.end_time = end_time;
  options.observe_every = 1000000;
  options.kkt.form = form;
  return options;
}

}  // namespace

TEST_CASE("singular mass: Euler parameters' M is singular along p and positive definite on null(J)", "[kkt][singular_mass]") {
  const EulerParameterTop top;
  std::mt19937_64 rng(45001);
  std::vector<State> states;
  for (int s = 0; s < 3; ++s) {
    State state;
    state.q = testing::randomVector(rng, 4, 1.0).normalized();
    state.v = testing::randomVector(rng, 4, 10.0);
    if (s == 2) state.q *= 1.05;  // off the manifold: every term of γ counts
    states.push_back(state);
  }
  Matrix M(4, 4);
  top.massMatrix(states[0].q, M);
  CHECK((M * states[0].q).norm() < 1e-12 * M.norm());  // M p = 0
  // At the benchmark's start p = (1, 0, 0, 0) the zero is exact and Cholesky breaks down: what
  // every solve refused before the block form learnt to test null(J) instead.
  top.massMatrix(EulerParameterTop::start().q, M);
  CHECK(M.row(0).norm() == 0.0);
  CHECK(Eigen::LLT<Matrix>(M).info() != Eigen::Success);
  const ModelCheckReport report = checkModel(top, states);
  INFO(report.describe());
  CHECK(report.ok());
}

TEST_CASE("singular mass: the block form runs the Euler-parameter top to the published displacement", "[kkt][singular_mass]") {
  const EulerParameterTop top;
  State last;
  const Summary summary = simulate(top, EulerParameterTop::start(), rk4Options(KktForm::Block, 2.0),
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                     last = State{t, q, v};
                                   });
  INFO(summary.briefReport());
  REQUIRE(summary.ok());
  REQUIRE(last.t == 2.0);
  const Eigen::Vector3d error = EulerParameterTop::displacement(last.q) - HeavyTop::kReferenceDisplacement;
  INFO("displacement error " << error.transpose());
  CHECK(error.lpNorm<Eigen::Infinity>() < 1e-7);
}

TEST_CASE("singular mass: the Schur form refuses it by name, and so do soft constraints in block form", "[kkt][singular_mass]") {
  const EulerParameterTop top;
  const Summary schur = simulate(top, EulerParameterTop::start(), rk4Options(KktForm::Schur, 0.01));
  CHECK(schur.status == RunStatus::KktFailure);
  CHECK_THAT(schur.message, Catch::Contains("Schur form needs M⁻¹") && Catch::Contains("KktForm::Block"));
  SimulationOptions soft = rk4Options(KktForm::Block, 0.01);
  soft.stabilization = Stabilization::softConstraint();
  const Summary refused = simulate(top, EulerParameterTop::start(), soft);
  CHECK(refused.status == RunStatus::KktFailure);
  CHECK_THAT(refused.message, Catch::Contains("soft constraints") && Catch::Contains("singular"));
}

TEST_CASE("singular mass: projection falls back to the metric M + JᵀJ", "[kkt][singular_mass]") {
  const EulerParameterTop top;
  State state = EulerParameterTop::start();
  state.q *= 1.01;
  state.v[0] = 3.0;  // off the velocity manifold too (J q̇ = pᵀṗ)
  const ProjectionReport report = projectToManifold(top, state);
  INFO(report.message);
  REQUIRE(report.converged);
  CHECK(std::abs(state.q.norm() - 1.0) < 1e-12);
  CHECK(std::abs(state.q.dot(state.v)) < 1e-12);
}

TEST_CASE("singular mass: an M indefinite on null(J) is refused by checkModel and the block solve", "[kkt][singular_mass]") {
  // One constraint x₂ = 0 on three coordinates with M = diag(1, 1, 0) + a coupling that makes it
  // indefinite on null(J) = span(e₁, e₃): ZᵀMZ = [1 2; 2 1], eigenvalues −1 and 3.
  struct IndefiniteOnNullSpace final : ConstrainedSystem {
    std::string name() const override { return "indefinite_on_null_space"; }
    int nq() const override { return 3; }
    int nc() const override { return 1; }
    void massMatrix(ConstVectorRef, MatrixRef M) const override { M << 1, 0, 2, 0, 1, 0, 2, 0, 1; }
    void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, 1.0, 0.0; }
    void constraint(ConstVectorRef q, double, VectorRef phi) const override { phi[0] = q[1]; }
    void constraintJacobian(ConstVectorRef, double, MatrixRef J) const override { J << 0, 1, 0; }
    void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef gamma) const override { gamma[0] = 0.0; }
    double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override {
      return 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 2.0 * v[0] * v[2];
    }
    double potentialEnergy(ConstVectorRef q, double) const override { return q[1]; }
  };
  const IndefiniteOnNullSpace model;
  State state{0.0, Vector::Zero(3), Vector::Zero(3)};
  const ModelCheckReport report = checkModel(model, {state});
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].problem == ModelProblem::MassNotPositiveDefinite);
  CHECK(report.findings[0].got == Approx(-1.0).epsilon(1e-12));
  CHECK_THAT(report.findings[0].detail, Catch::Contains("null(J)"));
  KktOptions options;
  options.form = KktForm::Block;
  KktWorkspace ws(model, options);
  const KktResult result = solveAccelerations(model, 0.0, state.q, state.v, Vector(), Stabilization::none(), options, ws);
  CHECK(result.status == KktStatus::Singular);
  CHECK_THAT(result.message, Catch::Contains("not positive definite on null(J)"));
}

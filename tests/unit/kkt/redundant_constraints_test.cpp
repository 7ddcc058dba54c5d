// Redundant constraints under KktOptions::rank_deficiency: a parallelogram linkage closed twice
// (a third crank parallel to the other two) against the same linkage closed once, and a link
// written twice. The motion and the total constraint force Jᵀλ must be the non-redundant ones.
#include <catch2/catch.hpp>

#include <Eigen/SVD>
#include <cmath>

#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/circle_mass.hpp"
#include "kktdae/models/particle_system.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

constexpr double kCrankLength = 1.0;
const Eigen::Vector3d kPivotA(0.0, 0.0, 0.0);
const Eigen::Vector3d kPivotD(2.0, 0.0, 0.0);
const Eigen::Vector3d kPivotE(1.0, 0.5, 0.0);  // F − B on the coupler: the third crank is parallel

/// A parallelogram four-bar in maximal coordinates: a rigid coupler triangle B, C, F (distances
/// between all three), cranks A–B and D–C of equal length; `closed_twice` adds the crank E–F,
/// which moves with the other two and so adds a constraint but removes no freedom (nc 6, rank 5).
/// The coupler only translates: the motion is a pendulum of length kCrankLength in the crank angle.
ParticleSystem parallelogram(bool closed_twice) {
  ParticleSystemParams p;
  p.dimension = 2;
  p.particles = {{1.0, Eigen::Vector3d::Zero()}, {1.5, Eigen::Vector3d::Zero()}, {0.5, Eigen::Vector3d::Zero()}};
  p.anchors = {kPivotA, kPivotD, kPivotE};
  p.distances = {{PointRef::particle(0), PointRef::anchor(0), kCrankLength},
                 {PointRef::particle(1), PointRef::anchor(1), kCrankLength},
                 {PointRef::particle(0), PointRef::particle(1), (kPivotD - kPivotA).norm()},
                 {PointRef::particle(0), PointRef::particle(2), (kPivotE - kPivotA).norm()},
                 {PointRef::particle(1), PointRef::particle(2), (kPivotE - kPivotD).norm()}};
  if (closed_twice) p.distances.push_back({PointRef::particle(2), PointRef::anchor(2), kCrankLength});
  return ParticleSystem(p);
}

/// The state at crank angle θ (from +x) and rate θ̇: every coupler point moves like a crank tip.
State parallelogramState(const ParticleSystem& system, double theta, double theta_dot) {
  const Eigen::Vector3d tip(kCrankLength * std::cos(theta), kCrankLength * std::sin(theta), 0.0);
  const Eigen::Vector3d rate(-kCrankLength * std::sin(theta) * theta_dot, kCrankLength * std::cos(theta) * theta_dot, 0.0);
  return system.makeState({kPivotA + tip, kPivotD + tip, kPivotE + tip}, {rate, rate, rate});
}

/// The linkage closed once and twice, built once per test.
struct ParallelogramPair {
  ParticleSystem once = parallelogram(false);
  ParticleSystem twice = parallelogram(true);
};

KktOptions policyOptions(KktForm form, RankDeficiencyPolicy policy) {
  KktOptions options;
  options.form = form;
  options.rank_deficiency = policy;
  return options;
}

}  // namespace

TEST_CASE("redundant: a linkage closed twice gives the non-redundant accelerations and total force",
          "[kkt][redundant]") {
  const ParticleSystem once = parallelogram(false);
  const ParticleSystem twice = parallelogram(true);
  for (double theta : {-2.1, -1.2, -0.4, 2.5}) {
    const State s_once = parallelogramState(once, theta, 1.3);
    const State s_twice = parallelogramState(twice, theta, 1.3);
    KktWorkspace reference(once);
    REQUIRE(solveAccelerations(once, 0.0, s_once.q, s_once.v, Vector(), {}, KktOptions{}, reference).ok());
    const Vector reference_force = reference.J.transpose() * reference.lambda;
    const double scale = 1.0 + reference.qdd.lpNorm<Eigen::Infinity>();

    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      INFO("theta " << theta << ", " << toString(form));
      KktWorkspace ws(twice);
      const KktResult failed =
          solveAccelerations(twice, 0.0, s_twice.q, s_twice.v, Vector(), {}, policyOptions(form, RankDeficiencyPolicy::Fail), ws);
      CHECK_FALSE(failed.ok());
      CHECK(failed.offending_rows.size() == 1);

      const KktResult minimum_norm = solveAccelerations(twice, 0.0, s_twice.q, s_twice.v, Vector(), {},
                                                        policyOptions(form, RankDeficiencyPolicy::MinimumNorm), ws);
      REQUIRE(minimum_norm.ok());
      CHECK(minimum_norm.rank_deficient);
      CHECK(minimum_norm.rank == 5);
      CHECK(minimum_norm.rcond < 1e-13);
      CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      const Vector force = ws.J.transpose() * ws.lambda;
      CHECK((force - reference_force).lpNorm<Eigen::Infinity>() < 1e-12 * (1.0 + reference_force.lpNorm<Eigen::Infinity>()));
      // Minimum norm: λ has no component along null(Jᵀ), the direction in which λ is not unique.
      Eigen::JacobiSVD<Matrix> svd(ws.J.transpose(), Eigen::ComputeFullV);
      const Vector null_direction = svd.matrixV().col(ws.nc - 1);
      CHECK((ws.J.transpose() * null_direction).norm() < 1e-12);
      CHECK(std::abs(null_direction.dot(ws.lambda)) < 1e-10 * (1.0 + ws.lambda.norm()));

      const KktResult regularized = solveAccelerations(twice, 0.0, s_twice.q, s_twice.v, Vector(), {},
                                                       policyOptions(form, RankDeficiencyPolicy::Regularize), ws);
      REQUIRE(regularized.ok());
      CHECK(regularized.rank_deficient);
      // O(ε/w_min⁺) with ε = 1e-8 relative to A's largest eigenvalue: measured 3e-8 to 2e-7 of
      // |q̈| at these angles, where minimum norm is exact to 1e-12.
      CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-6 * scale);
      CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() > 1e-13 * scale);
    }
  }
}

TEST_CASE("redundant: runs of the linkage closed twice follow the linkage closed once, and say so",
          "[kkt][redundant][simulate]") {
  const ParticleSystem once = parallelogram(false);
  const ParticleSystem twice = parallelogram(true);
  const double theta0 = -M_PI / 2 + 0.6;

  struct Case {
    Integrator integrator;
    KktForm form;
    RankDeficiencyPolicy policy;
    double tolerance;  // on positions after 2 s
  };
  // Fixed step: the same q̈ up to round-off (1e-12 above), and RK4 adds no error of its own
  // between the two runs (measured 1.3e-15 after 2 s). Regularize perturbs q̈ by ~1e-7
  // relative (ε = 1e-8 over a smallest kept eigenvalue ~0.1 of the largest): measured 6.2e-8.
  // CVODE at rtol 1e-9 is held to 1e-8, the order of its own global error (measured 2.5e-11:
  // both runs take nearly the same steps).
  const Case cases[] = {{Integrator::Rk4, KktForm::Schur, RankDeficiencyPolicy::MinimumNorm, 1e-12},
                        {Integrator::Rk4, KktForm::Block, RankDeficiencyPolicy::MinimumNorm, 1e-12},
                        {Integrator::Rk4, KktForm::Schur, RankDeficiencyPolicy::Regularize, 1e-6},
                        {Integrator::Rk4, KktForm::Block, RankDeficiencyPolicy::Regularize, 1e-6},
                        {Integrator::CvodeBdf, KktForm::Schur, RankDeficiencyPolicy::MinimumNorm, 1e-8}};
  for (const Case& c : cases) {
    INFO(toString(c.integrator) << ", " << toString(c.form) << ", " << toString(c.policy));
    SimulationOptions options;
    options.integrator = c.integrator;
    options.dt = 0.002;
    options.steps = 1000;
    options.adaptive.rtol = 1e-9;
    options.adaptive.atol = 1e-11;
    options.stabilization = Stabilization::baumgarte(5.0, 5.0);
    options.kkt.form = c.form;
    Matrix path_once(*options.steps + 1, once.nq());
    Matrix path_twice(*options.steps + 1, twice.nq());
    long row = 0;
    const Summary reference = simulate(once, parallelogramState(once, theta0, 0.0), options,
                                       [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { path_once.row(row++) = q; });
    REQUIRE(reference.ok());
    CHECK(reference.rank_deficient_solves == 0);

    options.kkt.rank_deficiency = c.policy;
    row = 0;
    const Summary summary = simulate(twice, parallelogramState(twice, theta0, 0.0), options,
                                     [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { path_twice.row(row++) = q; });
    INFO(summary.briefReport() << " | " << summary.notes);
    REQUIRE(summary.ok());
    CHECK(row == *options.steps + 1);
    CHECK((path_twice - path_once).lpNorm<Eigen::Infinity>() < c.tolerance);
    CHECK(summary.rank_deficient_solves == summary.kkt_solves);
    CHECK(summary.min_constraint_rank == (c.policy == RankDeficiencyPolicy::MinimumNorm ? 5 : -1));
    CHECK_THAT(summary.notes, Contains("rank-deficient KKT (" + std::string(toString(c.policy)) + ")"));
    CHECK_THAT(summary.notes, Contains("dependent rows ["));
    CHECK(summary.max_phi_inf < 1e-6);
  }

  SECTION("the default policy stops at the first solve and names the row") {
    SimulationOptions options;
    options.integrator = Integrator::Rk4;
    const Summary summary = simulate(twice, parallelogramState(twice, theta0, 0.0), options);
    CHECK(summary.status == RunStatus::KktFailure);
    CHECK(summary.failed_step == 0);
    CHECK_THAT(summary.message, Contains("offending constraint rows ["));
  }
}

TEST_CASE("redundant: a constraint written twice shares its force equally under minimum norm", "[kkt][redundant]") {
  const testing::DuplicatedCircle twice;
  const CircleMass once(CircleMassParams{});
  Vector q(2), v(2);
  q << 0.6, -0.8;
  v << 0.8, 0.6;
  KktWorkspace reference(once);
  REQUIRE(solveAccelerations(once, 0.0, q, v, Vector(), {}, KktOptions{}, reference).ok());
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    KktWorkspace ws(twice);
    const KktResult result =
        solveAccelerations(twice, 0.0, q, v, Vector(), {}, policyOptions(form, RankDeficiencyPolicy::MinimumNorm), ws);
    REQUIRE(result.ok());
    CHECK(result.rank == 1);
    CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-12);
    CHECK(ws.lambda[0] == Approx(reference.lambda[0] / 2).epsilon(1e-12));
    CHECK(ws.lambda[1] == Approx(reference.lambda[0] / 2).epsilon(1e-12));
  }
}

TEST_CASE("redundant: policy options are validated and parsed", "[kkt][redundant][options]") {
  CHECK(parseRankDeficiencyPolicy("minimum_norm") == RankDeficiencyPolicy::MinimumNorm);
  CHECK(parseRankDeficiencyPolicy("regularize") == RankDeficiencyPolicy::Regularize);
  CHECK(parseRankDeficiencyPolicy("fail") == RankDeficiencyPolicy::Fail);
  CHECK_THROWS_WITH(parseRankDeficiencyPolicy("pinv"), Contains("fail, minimum_norm or regularize"));
  KktOptions options;
  options.rank_tolerance = 0.0;
  CHECK_THROWS_WITH(options.validate(), Contains("kkt.rank_tolerance"));
  options = KktOptions{};
  options.regularization = 1.5;
  CHECK_THROWS_WITH(options.validate(), Contains("kkt.regularization"));
  options = KktOptions{};
  options.rank_deficiency = RankDeficiencyPolicy::Regularize;
  options.min_rcond = 1e-6;
  CHECK_THROWS_WITH(options.validate(), Contains("must exceed kkt.min_rcond"));
}

TEST_CASE("redundant: projection after every step applies the policy too", "[kkt][redundant][projection]") {
  const ParallelogramPair pair;
  const double theta0 = -M_PI / 2 + 0.6;
  for (RankDeficiencyPolicy policy : {RankDeficiencyPolicy::MinimumNorm, RankDeficiencyPolicy::Regularize}) {
    INFO(toString(policy));
    SimulationOptions options;
    options.integrator = Integrator::Rk4;
    options.dt = 0.002;
    options.steps = 500;
    options.stabilization.project_after_step = true;
    State end_once, end_twice;
    const Summary once = simulate(pair.once, parallelogramState(pair.once, theta0, 0.0), options,
                                  [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { end_once = {t, q, v}; });
    options.kkt.rank_deficiency = policy;
    const Summary twice = simulate(pair.twice, parallelogramState(pair.twice, theta0, 0.0), options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { end_twice = {t, q, v}; });
    INFO(twice.briefReport());
    REQUIRE(once.ok());
    REQUIRE(twice.ok());  // before the policy reached the projection: ProjectionFailure in 2–3 steps
    CHECK(twice.projections == options.steps);
    CHECK(twice.max_phi_inf <= options.projection.tolerance);
    // Minimum norm projects exactly as the closed-once linkage does; Regularize's ε perturbs the
    // accelerations by ~1e-7 relative (see above) and the projection by less.
    CHECK((end_twice.q - end_once.q).lpNorm<Eigen::Infinity>() <
          (policy == RankDeficiencyPolicy::MinimumNorm ? 1e-12 : 1e-6));
  }
}

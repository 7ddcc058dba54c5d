// Redundant constraints under KktOptions::rank_deficiency: a parallelogram linkage closed twice
// (a third crank parallel to the other two) against the same linkage closed once, and a link
// written twice. The motion and the total constraint force Jᵀλ must be the non-redundant ones.
#include <catch2/catch.hpp>

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/circle_mass.hpp"
#include "kktdae/models/particle_system.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "support/pendulum_reference.hpp"
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
ParticleSystem parallelogram(bool closed_twice, const Eigen::Vector3d& masses = Eigen::Vector3d(1.0, 1.5, 0.5)) {
  ParticleSystemParams p;
  p.dimension = 2;
  p.particles = {{masses[0], Eigen::Vector3d::Zero()}, {masses[1], Eigen::Vector3d::Zero()},
                 {masses[2], Eigen::Vector3d::Zero()}};
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
      // The dependency runs through the loop the third crank closes: its row and the rows that
      // complete the loop are named, not one row a pivoting order happened to leave last.
      CHECK(failed.offending_rows.size() > 1);
      CHECK(std::find(failed.offending_rows.begin(), failed.offending_rows.end(), 5) != failed.offending_rows.end());

      const KktResult minimum_norm = solveAccelerations(twice, 0.0, s_twice.q, s_twice.v, Vector(), {},
                                                        policyOptions(form, RankDeficiencyPolicy::MinimumNorm), ws);
      REQUIRE(minimum_norm.ok());
      CHECK(minimum_norm.rank_deficient);
      CHECK(minimum_norm.rank == 5);
      CHECK(minimum_norm.rcond < 1e-13);
      CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      const Vector force = ws.J.transpose() * ws.lambda;
      CHECK((force - reference_force).lpNorm<Eigen::Infinity>() <
            1e-12 * (1.0 + reference_force.lpNorm<Eigen::Infinity>()));
      // Minimum norm: λ has no component along null(Jᵀ), the direction in which λ is not unique.
      Eigen::JacobiSVD<Matrix> svd(ws.J.transpose(), Eigen::ComputeFullV);
      const Vector null_direction = svd.matrixV().col(ws.nc - 1);
      CHECK((ws.J.transpose() * null_direction).norm() < 1e-12);
      CHECK(std::abs(null_direction.dot(ws.lambda)) < 1e-10 * (1.0 + ws.lambda.norm()));

      const KktResult regularized = solveAccelerations(twice, 0.0, s_twice.q, s_twice.v, Vector(), {},
                                                       policyOptions(form, RankDeficiencyPolicy::Regularize), ws);
      REQUIRE(regularized.ok());
      CHECK(regularized.rank_deficient);
      // (A + diag(ε)) λ = b alone is off by O(ε) relative (3e-8 to 2e-7 of |q̈| at these angles);
      // its two refinement steps bring q̈ to the exact answer, as minimum norm's.
      CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      const Vector regularized_force = ws.J.transpose() * ws.lambda;
      CHECK((regularized_force - reference_force).lpNorm<Eigen::Infinity>() <
            1e-12 * (1.0 + reference_force.lpNorm<Eigen::Infinity>()));
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
    // Minimum norm projects exactly as the closed-once linkage does; the projection's Newton
    // iterates with A + diag(ε) unrefined under Regularize, which leaves an O(ε) trace.
    CHECK((end_twice.q - end_once.q).lpNorm<Eigen::Infinity>() <
          (policy == RankDeficiencyPolicy::MinimumNorm ? 1e-12 : 1e-6));
  }
}

TEST_CASE("redundant: on a linkage whose masses differ by 1e6, regularize follows the exact motion as closely as minimum "
          "norm",
          "[kkt][redundant][simulate]") {
  // Masses 1000, 1 and 0.001 kg: J M⁻¹ Jᵀ's rows differ in stiffness by 1e6. Every particle moves
  // like a crank tip whatever the masses, so the crank angle obeys θ̈ = −(g/L) cos θ.
  const ParticleSystem twice = parallelogram(true, Eigen::Vector3d(1000.0, 1.0, 0.001));
  const double theta0 = -M_PI / 2 + 0.6, horizon = 5.0, dt = 1e-3;
  // The 1-DOF reference by RK4 at dt 1e-5 (its own error ~1e-16 rad).
  std::vector<double> angle;
  {
    double theta = theta0, rate = 0.0;
    angle.push_back(theta);
    for (long k = 0; k < std::lround(horizon / dt); ++k) {
      testing::advancePendulum(9.81 / kCrankLength, theta, rate, dt, 100);
      angle.push_back(theta);
    }
  }
  double errors[2] = {0.0, 0.0};
  for (const RankDeficiencyPolicy policy : {RankDeficiencyPolicy::MinimumNorm, RankDeficiencyPolicy::Regularize}) {
    SimulationOptions options;
    options.integrator = Integrator::Rk4;
    options.dt = dt;
    options.end_time = horizon;
    options.kkt.rank_deficiency = policy;
    double worst = 0.0;
    std::size_t k = 0;
    const Summary summary = simulate(twice, parallelogramState(twice, theta0, 0.0), options,
                                     [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
                                       const Eigen::Vector2d tip(kCrankLength * std::cos(angle[k]), kCrankLength * std::sin(angle[k]));
                                       worst = std::max(worst, (q.head<2>() - (kPivotA.head<2>() + tip)).lpNorm<Eigen::Infinity>());
                                       ++k;
                                     });
    INFO(toString(policy) << ": " << summary.briefReport());
    REQUIRE(summary.ok());
    errors[policy == RankDeficiencyPolicy::MinimumNorm ? 0 : 1] = worst;
  }
  WARN("rk4 dt 1e-3 over 5 s, masses 1000/1/0.001: worst position error, minimum norm " << errors[0]
       << " m, regularize " << errors[1] << " m");
  CHECK(errors[0] < 1e-8);
  CHECK(errors[1] < 1e-8);
  CHECK(errors[1] < 10 * errors[0]);
}

TEST_CASE("redundant: the implicit Newton integrators refuse a policy up front, naming it and themselves",
          "[kkt][redundant][options]") {
  const ParticleSystem twice = parallelogram(true);
  for (const Integrator integrator : {Integrator::GeneralizedAlpha, Integrator::Hht, Integrator::IdaIndex1, Integrator::IdaGgl}) {
    SimulationOptions options;
    options.integrator = integrator;
    options.kkt.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
    INFO(toString(integrator));
    CHECK_THROWS_WITH(simulate(twice, parallelogramState(twice, -1.0, 0.0), options),
                      Contains("kkt.rank_deficiency") && Contains(std::string(toString(integrator))) &&
                          Contains("minimum_norm"));
  }
}

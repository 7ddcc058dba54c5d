// The Schur form's small path (lib/src/kkt/small_schur.hpp: 1 ≤ nc ≤ 4, diagonal M) against the
// general path it replaces, written out here with the very Eigen statements of schur_solve.cpp:
// the answers must agree to the bit, and the condition estimate must be Hager's (a lower bound
// of ‖A⁻¹‖₁, exact for 2×2), checked against the condition number from the explicit inverse.
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>

#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;

namespace {

struct Reference {
  Vector qdd, lambda;
  double rcond_exact = 0.0;  ///< 1 / (‖A‖₁ ‖A⁻¹‖₁), A = J M⁻¹ Jᵀ
};

/// The general Schur path of schur_solve.cpp (formConstraintSpaceSystem, then LLT, then
/// accelerationsFromMultipliers) on the terms the solve evaluated into `ws`.
Reference generalSchurPath(const KktWorkspace& ws, const Stabilization& stabilization) {
  Matrix inverse_mass_jt(ws.nq, ws.nc), schur(ws.nc, ws.nc);
  Vector schur_rhs(ws.nc), qdd(ws.nq);
  inverse_mass_jt.noalias() = ws.inverse_mass_diagonal.asDiagonal() * ws.J.transpose();
  const Vector free_acceleration = ws.inverse_mass_diagonal.cwiseProduct(ws.force);
  schur.noalias() = ws.J * inverse_mass_jt;
  schur_rhs.noalias() = ws.J * free_acceleration;
  schur_rhs += ws.gamma;
  schur_rhs = -schur_rhs;
  subtractStabilizationTerms(stabilization, ws.phi, ws.phi_dot, schur_rhs);
  const Eigen::LLT<Matrix> llt(schur);
  REQUIRE(llt.info() == Eigen::Success);
  const Vector lambda = llt.solve(schur_rhs);
  qdd.noalias() = ws.J.transpose() * lambda;
  qdd += ws.force;
  qdd.array() /= ws.mass_diagonal.array();
  const auto oneNorm = [](const Matrix& a) { return a.cwiseAbs().colwise().sum().maxCoeff(); };
  return {qdd, lambda, 1.0 / (oneNorm(schur) * oneNorm(schur.inverse()))};
}

/// Bit for bit where the arithmetic is IEEE double in SSE2 registers with no fused multiply-add
/// (x86-64 without -march=native, the library's build); elsewhere to the last few bits.
bool same(const Vector& a, const Vector& b) {
#if defined(__x86_64__) && !defined(__FMA__)
  return a.size() == b.size() && (a.array() == b.array()).all();
#else
  return a.size() == b.size() && (a - b).norm() <= 1e-14 * (1.0 + a.norm());
#endif
}

void compareWithGeneralPath(const ConstrainedSystem& system, double q_scale, int trials) {
  REQUIRE(system.nc() >= 1);
  REQUIRE(system.nc() <= 4);
  std::mt19937_64 rng(7);
  const Stabilization stabilizations[] = {Stabilization::none(), Stabilization::critical(20.0),
                                          Stabilization::baumgarte(3.0, 7.0)};
  KktWorkspace ws(system);
  for (int trial = 0; trial < trials; ++trial) {
    const Vector q = randomVector(rng, system.nq(), q_scale);
    const Vector v = randomVector(rng, system.nq(), 2.0);
    for (const Stabilization& stabilization : stabilizations) {
      for (const bool estimate : {true, false}) {
        KktOptions options;
        options.estimate_condition = estimate;
        const KktResult result = solveAccelerations(system, 0.3, q, v, Vector(), stabilization, options, ws);
        INFO(system.name() << " trial " << trial << " " << stabilization.describe() << " estimate " << estimate
                           << ": " << result.message);
        REQUIRE(result.ok());
        const Reference reference = generalSchurPath(ws, stabilization);
        CHECK(same(ws.qdd, reference.qdd));
        CHECK(same(ws.lambda, reference.lambda));
        if (!estimate) {
          CHECK(result.rcond == 1.0);
        } else if (system.nc() <= 2) {
          CHECK(result.rcond == Approx(reference.rcond_exact).epsilon(1e-12));
        } else {
          // Hager's estimate of ‖A⁻¹‖₁ is a lower bound, almost always within a factor 3.
          CHECK(result.rcond >= reference.rcond_exact * (1.0 - 1e-12));
          CHECK(result.rcond <= 3.0 * reference.rcond_exact);
        }
      }
    }
  }
}

/// Point masses in the plane on rods: the first hangs from an anchor, each further one from the
/// previous, and with `constraints` = 3 or 4 also from extra anchors (J not a chain's).
ParticleSystem planarRods(int particles, int constraints) {
  ParticleSystemParams p;
  p.dimension = 2;
  for (int k = 0; k < particles; ++k) p.particles.push_back({0.7 + 0.4 * k, Eigen::Vector3d::Zero()});
  p.anchors = {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(2.0, 0.0, 0.0)};
  p.distances.push_back({PointRef::particle(0), PointRef::anchor(0), 1.0});
  for (int k = 1; k < particles; ++k) p.distances.push_back({PointRef::particle(k), PointRef::particle(k - 1), 1.2});
  for (int k = particles; k < constraints; ++k) {
    p.distances.push_back({PointRef::particle(k - particles + 1), PointRef::anchor(1), 1.5});
  }
  return ParticleSystem(p);
}

}  // namespace

TEST_CASE("kkt small Schur path: the general path's bits for nc = 1 to 4", "[kkt][small]") {
  for (int links : {1, 2, 3}) {
    compareWithGeneralPath(PendulumChain(PendulumChainParams::uniform(links)), 1.5, 30);
    PendulumChainParams params = PendulumChainParams::uniform(links);
    for (int k = 0; k < links; ++k) {
      params.masses[k] = 0.3 + 0.9 * k;
      params.lengths[k] = 1.0 + 0.2 * k;
    }
    compareWithGeneralPath(PendulumChain(params), 1.5, 30);
  }
  compareWithGeneralPath(CircleMass(), 1.5, 30);
  compareWithGeneralPath(PointOnPlane(), 1.5, 30);
  compareWithGeneralPath(planarRods(2, 2), 1.5, 30);
  compareWithGeneralPath(planarRods(3, 3), 1.5, 30);
  compareWithGeneralPath(planarRods(3, 4), 1.5, 30);
}

TEST_CASE("kkt small Schur path: a singular 2×2 system still fails, or takes the policy, as before",
          "[kkt][small][errors]") {
  const testing::DuplicatedCircle redundant;
  Vector q(2), v(2);
  q << 0.6, -0.8;
  v << 0.8, 0.6;
  KktWorkspace ws(redundant);
  KktOptions options;
  const KktResult failed = solveAccelerations(redundant, 0.0, q, v, Vector(), {}, options, ws);
  CHECK((failed.status == KktStatus::Singular || failed.status == KktStatus::IllConditioned));
  CHECK(failed.offending_rows.size() == 1);
  options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
  const KktResult minimum_norm = solveAccelerations(redundant, 0.0, q, v, Vector(), {}, options, ws);
  CHECK(minimum_norm.ok());
  CHECK(minimum_norm.rank_deficient);
  CHECK(ws.lambda[0] == Approx(ws.lambda[1]));  // the shortest λ splits the force evenly
}

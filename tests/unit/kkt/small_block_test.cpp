// The block form's small path (lib/src/kkt/small_block.hpp: 2 ≤ nq + nc ≤ 6) against the
// general path it replaces, written out here with the very Eigen statements of block_solve.cpp
// (dynamic-size PartialPivLU, its solve, Hager's estimate through it): q̈ and λ must agree to the
// bit, rcond to round-off; and a dense reference (FullPivLU of the block assembled by hand)
// checks that both solve the KKT system. Singular, ill-conditioned and non-finite blocks must
// leave the small path and end as the general path words them.
#include <catch2/catch.hpp>

#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <random>

#include "../../../lib/src/kkt/condition_estimate.hpp"
#include "../../../lib/src/kkt/small_block.hpp"
#include "support/same_bits.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;
using kktdae::testing::sameToTheBit;

namespace {

struct GeneralAnswer {
  Vector qdd, lambda;
  double rcond = 0.0;
};

/// solveBlock()'s general-path assembly of [M −Jᵀ; J 0] and [f; target] into ws.block and
/// ws.block_rhs (diagonal M), with block_solve.cpp's Eigen statements: the small path assembles
/// its stack matrix from the terms and leaves ws.block alone, so the reference is built here.
void assembleBlock(KktWorkspace& ws) {
  const int nq = ws.nq, nc = ws.nc;
  ws.ensureBlockStorage();
  ws.block.setZero();
  ws.block.topLeftCorner(nq, nq).diagonal() = ws.mass_diagonal;
  ws.block.topRightCorner(nq, nc) = -ws.J.transpose();
  ws.block.bottomLeftCorner(nc, nq) = ws.J;
  ws.block_rhs.head(nq) = ws.force;
  ws.block_rhs.tail(nc) = ws.constraint_target;
}

/// block_solve.cpp's general path on the block assembleBlock() put into `ws`.
GeneralAnswer generalBlockPath(const KktWorkspace& ws) {
  const Eigen::PartialPivLU<Matrix> lu(ws.block);
  const Eigen::Index n = ws.block.rows();
  Vector scratch(n), x(n), y(n), z(n);
  auto solve = [&](Vector& v) {
    scratch = lu.solve(v);
    v = scratch;
  };
  auto solveTransposed = [&](Vector& v) {
    lu.matrixLU().triangularView<Eigen::Upper>().transpose().solveInPlace(v);
    lu.matrixLU().triangularView<Eigen::UnitLower>().transpose().solveInPlace(v);
    scratch.noalias() = lu.permutationP().transpose() * v;
    v = scratch;
  };
  const double rcond =
      detail::reciprocalCondition(detail::oneNorm(ws.block), detail::inverseOneNormEstimate(solve, solveTransposed, x, y, z));
  const Vector solution = lu.solve(ws.block_rhs);
  return {solution.head(ws.nq), solution.tail(ws.nc), rcond};
}

/// Particles in the plane (dimension 2) or in space on distance constraints to anchors and to
/// each other: nq = dimension × particles, nc = constraints.
ParticleSystem particles(int dimension, int count, int constraints) {
  ParticleSystemParams p;
  p.dimension = dimension;
  for (int k = 0; k < count; ++k) p.particles.push_back({0.7 + 0.4 * k, Eigen::Vector3d::Zero()});
  p.anchors = {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(2.0, 0.0, 0.0)};
  for (int k = 0; k < constraints; ++k) {
    if (k < count) {
      p.distances.push_back({PointRef::particle(k), k == 0 ? PointRef::anchor(0) : PointRef::particle(k - 1), 1.2});
    } else {
      p.distances.push_back({PointRef::particle(k - count), PointRef::anchor(1), 1.5});
    }
  }
  return ParticleSystem(p);
}

}  // namespace

TEST_CASE("small block: q, lambda and rcond are the general path's for nq + nc = 2 to 6, and solve the KKT system",
          "[kkt][block]") {
  const CircleMass circle;
  const ParticleSystem free_particle = particles(2, 1, 0), planar = particles(2, 1, 2), spatial = particles(3, 1, 2),
                       planar_pair = particles(2, 2, 2);
  const ConstrainedSystem* systems[] = {&free_particle, &circle, &planar, &spatial, &planar_pair};
  std::mt19937_64 rng(11);
  int size = 2;
  for (const ConstrainedSystem* system : systems) {
    REQUIRE(system->nq() + system->nc() == size);
    KktWorkspace ws(*system);
    REQUIRE(detail::smallBlockTakes(ws));
    for (int trial = 0; trial < 20; ++trial) {
      const Vector q = randomVector(rng, system->nq(), 1.5);
      const Vector v = randomVector(rng, system->nq(), 2.0);
      for (const Stabilization& stabilization : {Stabilization::none(), Stabilization::baumgarte(5.0, 10.0)}) {
        for (const bool estimate : {true, false}) {
          KktOptions options;
          options.form = KktForm::Block;
          options.estimate_condition = estimate;
          const KktResult result = solveAccelerations(*system, 0.2, q, v, Vector(), stabilization, options, ws);
          INFO(system->name() << " size " << size << " trial " << trial << " estimate " << estimate << ": "
                              << result.message);
          REQUIRE(result.ok());
          assembleBlock(ws);
          const GeneralAnswer general = generalBlockPath(ws);
          CHECK(sameToTheBit(ws.qdd, general.qdd));
          CHECK(sameToTheBit(ws.lambda, general.lambda));
          if (estimate) {
            CHECK(result.rcond == Approx(general.rcond).epsilon(1e-12));
          } else {
            CHECK(result.rcond == 1.0);
          }
          // The KKT system itself: M q̈ − Jᵀλ = f, J q̈ = target.
          Matrix dense = Matrix::Zero(size, size);
          dense.topLeftCorner(system->nq(), system->nq()) = ws.mass_diagonal.asDiagonal();
          dense.topRightCorner(system->nq(), system->nc()) = -ws.J.transpose();
          dense.bottomLeftCorner(system->nc(), system->nq()) = ws.J;
          Vector rhs(size), solution(size);
          rhs << ws.force, ws.constraint_target;
          solution << ws.qdd, ws.lambda;
          const Vector reference = dense.fullPivLu().solve(rhs);
          CHECK((solution - reference).lpNorm<Eigen::Infinity>() <= 1e-10 * (1.0 + reference.lpNorm<Eigen::Infinity>()));
        }
      }
    }
    ++size;
  }
  const ParticleSystem larger = particles(3, 2, 2);  // 8: the general path
  CHECK_FALSE(detail::smallBlockTakes(KktWorkspace(larger)));
}

TEST_CASE("small block: singular, ill-conditioned and non-finite blocks end as the general path words them",
          "[kkt][block]") {
  const CircleMass circle;
  KktWorkspace ws(circle);
  KktOptions options;
  options.form = KktForm::Block;
  const Vector v = Vector::Zero(2);
  const Stabilization stabilization = Stabilization::baumgarte(5.0, 10.0);

  SECTION("J = 0 at the centre: a zero pivot, Singular, the rows named") {
    const KktResult result = solveAccelerations(circle, 0.0, Vector::Zero(2), v, Vector(), stabilization, options, ws);
    CHECK(result.status == KktStatus::Singular);
    CHECK(result.message == "block KKT matrix is singular (zero pivot in LU): constraint rows are dependent");
    CHECK(result.offending_rows == std::vector<int>{0});
    KktResult small;
    CHECK_FALSE(detail::solveBlockSmall(options, ws, small));
  }
  SECTION("rcond below min_rcond: IllConditioned without a policy, the policy's answer with one") {
    const Vector q = (Vector(2) << 1.01, 0.0).finished();
    options.min_rcond = 0.9;  // the circle's block has rcond ≈ 0.25
    const KktResult failed = solveAccelerations(circle, 0.0, q, v, Vector(), stabilization, options, ws);
    assembleBlock(ws);
    const GeneralAnswer general = generalBlockPath(ws);
    CHECK(failed.status == KktStatus::IllConditioned);
    CHECK(failed.rcond == Approx(general.rcond).epsilon(1e-12));
    CHECK(failed.message.rfind("KKT matrix ill-conditioned (rcond ", 0) == 0);
    options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
    KktResult small;
    CHECK_FALSE(detail::solveBlockSmall(options, ws, small));  // the policy is the general path's
    const KktResult answered = solveAccelerations(circle, 0.0, q, v, Vector(), stabilization, options, ws);
    CHECK(answered.ok());
    CHECK(answered.rank_deficient);
  }
  SECTION("a NaN or an infinite entry never gives an Ok answer, and fails as the general path would") {
    const Vector q = (Vector(2) << 0.6, 0.8).finished();
    REQUIRE(solveAccelerations(circle, 0.0, q, v, Vector(), stabilization, options, ws).ok());
    assembleBlock(ws);
    const Matrix good = ws.block;
    for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      for (const auto& [row, column] : {std::pair{2, 0}, std::pair{0, 2}, std::pair{1, 1}}) {
        ws.block = good;
        ws.block(row, column) = bad;
        INFO("block(" << row << ", " << column << ") = " << bad);
        // The general path's verdict, by block_solve.cpp's rules: a zero pivot is Singular (the
        // small path must leave it to the general one), then rcond below min_rcond or NaN is
        // IllConditioned, then a non-finite solution is NonFinite.
        const Eigen::PartialPivLU<Matrix> lu(ws.block);
        const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
        const bool zero_pivot = !(pivots.minCoeff() > std::numeric_limits<double>::epsilon() * 3 * pivots.maxCoeff());
        const GeneralAnswer general = generalBlockPath(ws);
        KktResult small;
        const bool taken = detail::solveBlockSmall(options, ws, small);
        if (zero_pivot) {
          CHECK_FALSE(taken);
        } else if (taken) {
          CHECK_FALSE(small.ok());
          const bool ill = !(general.rcond >= options.min_rcond);
          CHECK(small.status == (ill ? KktStatus::IllConditioned : KktStatus::NonFinite));
        }
      }
    }
  }
}

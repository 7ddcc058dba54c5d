// The sparse path against the dense one: the models' sparse J, solves in both forms (hard,
// Baumgarte, soft constraints), runs with projection, the automatic choice, and its errors.
#include <catch2/catch.hpp>

#include <random>

#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/particle_system.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/system/derivative_check.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

Matrix denseFromPattern(const ConstrainedSystem& system, ConstVectorRef q, double t) {
  const int non_zeros = system.jacobianNonZeros();
  IndexVector rows(non_zeros), cols(non_zeros);
  Vector values(non_zeros);
  system.constraintJacobianPattern(rows, cols);
  system.constraintJacobianValues(q, t, values);
  Matrix J = Matrix::Zero(system.nc(), system.nq());
  for (int k = 0; k < non_zeros; ++k) J(rows[k], cols[k]) += values[k];
  return J;
}

State tiltedChain(const PendulumChain& chain, double tilt, std::uint64_t seed) {
  State state = chain.initialState(tilt);
  std::mt19937_64 rng(seed);
  state.v = testing::randomVector(rng, chain.nq(), 0.3);
  // Consistent velocities: remove the part that violates J v = 0.
  Matrix J(chain.nc(), chain.nq());
  chain.constraintJacobian(state.q, 0.0, J);
  state.v -= J.transpose() * (J * J.transpose()).ldlt().solve(J * state.v);
  return state;
}

/// A chain that declares its (diagonal) M as general: a sparse J the sparse path cannot use.
class GeneralMassChain final : public testing::ForwardingChain {
 public:
  explicit GeneralMassChain(int links) : ForwardingChain(links) {}
  std::string name() const override { return "general_mass_chain"; }
  MassStructure massStructure() const override { return MassStructure::General; }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override {
    Vector d(nq());
    chain_.massDiagonal(q, d);
    M = d.asDiagonal();
  }
};

KktOptions pathOptions(KktPath path, KktForm form) {
  KktOptions options;
  options.path = path;
  options.form = form;
  return options;
}

}  // namespace

TEST_CASE("sparse path: the models' sparse J equals their dense J", "[kkt][sparse]") {
  std::mt19937_64 rng(3);
  const PendulumChain chain(PendulumChainParams::uniform(7));
  const Vector q = testing::randomVector(rng, chain.nq(), 1.0);
  CHECK((denseFromPattern(chain, q, 0.0) - [&] {
          Matrix J(chain.nc(), chain.nq());
          chain.constraintJacobian(q, 0.0, J);
          return J;
        }()).cwiseAbs().maxCoeff() == 0.0);

  ParticleSystemParams p;
  p.dimension = 2;
  p.particles = {{1.0, Eigen::Vector3d::Zero()}, {2.0, Eigen::Vector3d::Zero()}, {0.5, Eigen::Vector3d::Zero()}};
  p.anchors = {Eigen::Vector3d::Zero()};
  p.distances = {{PointRef::particle(0), PointRef::anchor(0), 1.0}, {PointRef::particle(1), PointRef::particle(0), 0.8},
                 {PointRef::particle(2), PointRef::particle(1), 0.7}};
  p.lines = {{2, Eigen::Vector3d(0.0, -1.0, 0.0), Eigen::Vector3d(1.0, 0.3, 0.0)}};
  const ParticleSystem particles(p);
  const Vector x = testing::randomVector(rng, particles.nq(), 1.0);
  Matrix J(particles.nc(), particles.nq());
  particles.constraintJacobian(x, 0.0, J);
  CHECK((denseFromPattern(particles, x, 0.0) - J).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("sparse path: solves equal the dense ones in both forms (hard, Baumgarte, soft)", "[kkt][sparse]") {
  for (int links : {1, 2, 5, 40}) {
    const PendulumChain chain(PendulumChainParams::uniform(links));
    const State state = tiltedChain(chain, 0.3, static_cast<std::uint64_t>(links));
    Vector q = state.q;
    q += Vector::Constant(chain.nq(), 1e-3);  // off the manifold: φ ≠ 0 for the stabilization terms
    for (const Stabilization& stabilization :
         {Stabilization::none(), Stabilization::critical(20.0), Stabilization::softConstraint()}) {
      KktWorkspace dense(chain, pathOptions(KktPath::Dense, KktForm::Schur));
      REQUIRE(solveAccelerations(chain, 0.0, q, state.v, Vector(), stabilization,
                                 pathOptions(KktPath::Dense, KktForm::Schur), dense).ok());
      for (KktForm form : {KktForm::Schur, KktForm::Block}) {
        INFO(links << " links, " << stabilization.describe() << ", " << toString(form));
        const KktOptions options = pathOptions(KktPath::Sparse, form);
        KktWorkspace ws(chain, options);
        REQUIRE(ws.sparse);
        CHECK(ws.J.size() == 0);  // no dense J on the sparse path
        const KktResult result = solveAccelerations(chain, 0.0, q, state.v, Vector(), stabilization, options, ws);
        REQUIRE(result.ok());
        const double scale = 1.0 + dense.qdd.lpNorm<Eigen::Infinity>() + dense.lambda.lpNorm<Eigen::Infinity>();
        CHECK((ws.qdd - dense.qdd).lpNorm<Eigen::Infinity>() < 1e-11 * scale);
        CHECK((ws.lambda - dense.lambda).lpNorm<Eigen::Infinity>() < 1e-11 * scale);
        CHECK((ws.phi_dot - dense.phi_dot).lpNorm<Eigen::Infinity>() < 1e-14 * scale);
      }
    }
  }
}

TEST_CASE("sparse path: runs with projection follow the dense runs", "[kkt][sparse][simulate]") {
  const PendulumChain chain(PendulumChainParams::uniform(20));
  const State initial = tiltedChain(chain, 0.5, 11);
  for (Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::Rk4}) {
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      INFO(toString(integrator) << ", " << toString(form));
      SimulationOptions options;
      options.integrator = integrator;
      options.dt = 1e-3;
      options.steps = 300;
      options.stabilization.project_after_step = true;
      options.kkt.form = form;
      options.kkt.path = KktPath::Dense;
      State dense_end, sparse_end;
      auto keepLast = [](State& into) {
        return [&into](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { into = {t, q, v}; };
      };
      const Summary dense = simulate(chain, initial, options, keepLast(dense_end));
      options.kkt.path = KktPath::Sparse;
      const Summary sparse = simulate(chain, initial, options, keepLast(sparse_end));
      REQUIRE(dense.ok());
      REQUIRE(sparse.ok());
      CHECK((sparse_end.q - dense_end.q).lpNorm<Eigen::Infinity>() < 1e-9);
      CHECK((sparse_end.v - dense_end.v).lpNorm<Eigen::Infinity>() < 1e-8);
      CHECK(sparse.max_phi_inf <= options.projection.tolerance);
      CHECK(sparse.projections == options.steps);
    }
  }
}

TEST_CASE("sparse path: automatic choice, overrides and refusals", "[kkt][sparse][options]") {
  KktOptions options;
  CHECK_FALSE(usesSparsePath(PendulumChain(PendulumChainParams::uniform(2)), options));
  CHECK(usesSparsePath(PendulumChain(PendulumChainParams::uniform(4)), options));  // 12 coordinates
  CHECK_FALSE(usesSparsePath(PendulumChain(PendulumChainParams::uniform(3)), options));  // the seed chapter's triple
  options.sparse_min_coordinates = 1;
  CHECK(usesSparsePath(PendulumChain(PendulumChainParams::uniform(1)), options));
  CHECK_FALSE(usesSparsePath(CircleMass(), options));  // no sparse J: dense
  options.path = KktPath::Dense;
  CHECK_FALSE(usesSparsePath(PendulumChain(PendulumChainParams::uniform(50)), options));

  options.path = KktPath::Sparse;
  CHECK_THROWS_WITH(usesSparsePath(CircleMass(), options), Contains("has none"));
  CHECK_THROWS_WITH(usesSparsePath(GeneralMassChain(20), options), Contains("diagonal mass"));
  options.path = KktPath::Auto;
  CHECK_FALSE(usesSparsePath(GeneralMassChain(20), options));
  options.path = KktPath::Sparse;
  options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
  CHECK_THROWS_WITH(usesSparsePath(PendulumChain(PendulumChainParams::uniform(3)), options), Contains("minimum_norm"));
  options.rank_deficiency = RankDeficiencyPolicy::Fail;
  options.path = KktPath::Auto;
  options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
  CHECK_FALSE(usesSparsePath(PendulumChain(PendulumChainParams::uniform(50)), options));

  const PendulumChain chain(PendulumChainParams::uniform(3));
  KktWorkspace sparse_ws(chain, pathOptions(KktPath::Sparse, KktForm::Schur));
  const State state = chain.initialState(0.1);
  CHECK_THROWS_WITH(solveAccelerations(chain, 0.0, state.q, state.v, Vector(), {}, pathOptions(KktPath::Dense, KktForm::Schur),
                                       sparse_ws),
                    Contains("built for the sparse path"));
  CHECK(parseKktPath("sparse") == KktPath::Sparse);
  CHECK_THROWS_WITH(parseKktPath("cholmod"), Contains("auto, dense or sparse"));
  KktOptions bad;
  bad.sparse_min_coordinates = 0;
  CHECK_THROWS_WITH(bad.validate(), Contains("kkt.sparse_min_coordinates"));
}

TEST_CASE("sparse path: a duplicated link fails with its row, or is regularized", "[kkt][sparse][redundant]") {
  // A 3-link chain in particle form with link 1 written twice.
  ParticleSystemParams p = ParticleSystemParams::fromPendulumChain(PendulumChainParams::uniform(3));
  p.distances.push_back(p.distances[1]);
  const ParticleSystem twice(p);
  const ParticleSystem once(ParticleSystemParams::fromPendulumChain(PendulumChainParams::uniform(3)));
  const State s_once = PendulumChain(PendulumChainParams::uniform(3)).initialState(0.4);
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    INFO(toString(form));
    KktOptions options = pathOptions(KktPath::Sparse, form);
    KktWorkspace ws(twice, options);
    const KktResult failed = solveAccelerations(twice, 0.0, s_once.q, s_once.v, Vector(), {}, options, ws);
    CHECK_FALSE(failed.ok());
    CHECK(failed.offending_rows.size() == 1);
    options.rank_deficiency = RankDeficiencyPolicy::Regularize;
    const KktResult regularized = solveAccelerations(twice, 0.0, s_once.q, s_once.v, Vector(), {}, options, ws);
    REQUIRE(regularized.ok());
    CHECK(regularized.rank_deficient);
    KktWorkspace reference(once, pathOptions(KktPath::Dense, KktForm::Schur));
    REQUIRE(solveAccelerations(once, 0.0, s_once.q, s_once.v, Vector(), {}, pathOptions(KktPath::Dense, KktForm::Schur),
                               reference).ok());
    CHECK((ws.qdd - reference.qdd).lpNorm<Eigen::Infinity>() < 1e-6 * (1.0 + reference.qdd.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("sparse path: a 20000-link chain steps in linear memory", "[kkt][sparse][large]") {
  const PendulumChain chain(PendulumChainParams::uniform(20000));
  SimulationOptions options;
  options.integrator = Integrator::SemiImplicitEuler;
  options.dt = 1e-4;
  options.steps = 5;
  options.stabilization.project_after_step = true;
  // The chain hangs 2e4 m: positions carry ~2e4·eps ≈ 4e-12 m of round-off, so |φ| cannot be
  // held below the default 1e-12; the projection stops at that floor and says so.
  const Summary summary = simulate(chain, chain.initialState(0.3), options);
  INFO(summary.briefReport());
  REQUIRE(summary.ok());
  CHECK(summary.max_phi_inf <= 1e3 * options.projection.tolerance);
  CHECK(summary.max_phi_inf > options.projection.tolerance);  // the floor is real at this length
}

namespace {

/// A chain whose sparse pattern misplaces one entry: the derivative checker must see it.
class MisplacedPatternChain final : public testing::ForwardingChain {
 public:
  MisplacedPatternChain() : ForwardingChain(3) {}
  std::string name() const override { return "misplaced_pattern_chain"; }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    chain_.constraintJacobianPattern(rows, cols);
    std::swap(cols[4], cols[5]);  // two entries of row 1 trade places
  }
};

}  // namespace

TEST_CASE("sparse path: the derivative checker compares the sparse J with the dense one", "[kkt][sparse][system]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  std::mt19937_64 rng(9);
  const Vector q = testing::randomVector(rng, chain.nq(), 1.0), v = testing::randomVector(rng, chain.nq(), 1.0);
  const DerivativeCheckReport good = checkDerivatives(chain, q, v, 0.0);
  CHECK(good.sparse_jacobian_error == 0.0);
  CHECK(good.worstRelativeError() < 1e-8);
  const DerivativeCheckReport bad = checkDerivatives(MisplacedPatternChain(), q, v, 0.0);
  INFO(bad.describe());
  CHECK(bad.sparse_jacobian_error > 0.1);
  CHECK(bad.worstRelativeError() > 0.1);
}

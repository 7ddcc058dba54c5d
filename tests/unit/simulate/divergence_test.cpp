// DivergenceRule::test() (the verdict without words, what the drivers ask after every step)
// against the rule written out by hand, and describe()'s words for each verdict.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

/// The rule as divergence.hpp states it, from a dense copy of J: maxᵢ |φᵢ| / ‖Jᵢ‖₂ over the
/// rows with a non-zero gradient (Eigen's row norm, the formula check() always used).
double manifoldDistance(const KktWorkspace& ws) {
  const Matrix J = ws.sparse ? Matrix(ws.constraint_space->J) : ws.J;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < J.rows(); ++i) {
    const double norm_squared = J.row(i).squaredNorm();
    if (!(norm_squared > 0.0)) continue;
    worst = std::max(worst, std::abs(ws.phi[i]) / std::sqrt(norm_squared));
  }
  return worst;
}

/// A 4-link chain's terms at a state pushed off the manifold by up to `scale`.
struct OffManifoldState {
  AccelerationFunction f;
  Vector q, v;
  OffManifoldState(const PendulumChain& chain, KktPath path)
      : f(chain, Stabilization::none(), [path] {
          KktOptions options;
          options.path = path;
          return options;
        }()) {}
  const KktWorkspace& at(const PendulumChain& chain, std::mt19937_64& rng, double scale) {
    const State start = chain.initialState(0.3);
    q = start.q + testing::randomVector(rng, chain.nq(), scale);
    v = testing::randomVector(rng, chain.nq(), 1.0);
    REQUIRE(f.evaluateTerms(0.0, q, v).ok());
    return f.workspace();
  }
};

}  // namespace

TEST_CASE("divergence: test() decides as the hand-written rule, dense and sparse, on both sides of the limit",
          "[divergence]") {
  const PendulumChain chain(PendulumChainParams::uniform(4));
  std::mt19937_64 rng(2201);
  for (const KktPath path : {KktPath::Dense, KktPath::Sparse}) {
    INFO((path == KktPath::Sparse ? "sparse" : "dense"));
    OffManifoldState state(chain, path);
    long off = 0, plausible = 0;
    for (int trial = 0; trial < 300; ++trial) {
      const double scale = std::pow(10.0, -6.0 + 7.0 * (trial % 50) / 49.0);  // 1e-6 … 10 m off
      const KktWorkspace& ws = state.at(chain, rng, scale);
      REQUIRE(ws.sparse == (path == KktPath::Sparse));
      const double distance = manifoldDistance(ws);
      REQUIRE(distance > 0.0);
      // The scale Q is min_scale = 1 (q0 = 0), so the limit is manifold_factor itself: put it
      // exactly at the distance (not diverged: the rule is d > limit), one ulp below (diverged),
      // and at random multiples of it, where the half-limit shortcut decides most rows.
      for (const double limit : {distance, std::nextafter(distance, 0.0), 0.3 * distance, 0.6 * distance,
                                 1.9 * distance, 2.1 * distance, 1e3 * distance}) {
        DivergenceOptions options;
        options.manifold_factor = limit;
        const DivergenceRule rule(options, Vector::Zero(chain.nq()));
        const DivergenceVerdict expected =
            distance > limit ? DivergenceVerdict::OffManifold : DivergenceVerdict::Plausible;
        INFO("trial " << trial << ", distance " << distance << ", limit " << limit);
        CHECK(rule.test(state.q, ws) == expected);
        CHECK(rule.test(state.q.lpNorm<Eigen::Infinity>(), ws) == expected);
        CHECK(rule.check(state.q, ws).empty() == (expected == DivergenceVerdict::Plausible));
        (expected == DivergenceVerdict::Plausible ? plausible : off) += 1;
      }
    }
    CHECK(off > 500);  // both outcomes were exercised many times
    CHECK(plausible > 500);
  }
}

TEST_CASE("divergence: a zero gradient row or a NaN in phi never fires the manifold rule, as before",
          "[divergence]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  std::mt19937_64 rng(7);
  OffManifoldState state(chain, KktPath::Dense);
  const KktWorkspace& evaluated = state.at(chain, rng, 0.5);
  KktWorkspace ws(chain);  // a copy of φ and J to break
  REQUIRE_FALSE(ws.sparse);
  ws.phi = evaluated.phi;
  ws.J = evaluated.J;
  DivergenceOptions options;
  options.manifold_factor = 1e-12;  // any finite distance is far beyond this
  const DivergenceRule rule(options, Vector::Zero(chain.nq()));
  REQUIRE(rule.test(state.q, ws) == DivergenceVerdict::OffManifold);
  ws.J.setZero();
  CHECK(rule.test(state.q, ws) == DivergenceVerdict::Plausible);  // the KKT solve reports singular J
  ws.J = evaluated.J;
  ws.phi.setConstant(std::numeric_limits<double>::quiet_NaN());
  CHECK(rule.test(state.q, ws) == DivergenceVerdict::Plausible);  // NaN is the finiteness checks' to report
  ws.phi[1] = std::numeric_limits<double>::infinity();
  CHECK(rule.test(state.q, ws) == DivergenceVerdict::OffManifold);
}

TEST_CASE("divergence: each verdict in order, with describe() naming the rule and its numbers", "[divergence]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  std::mt19937_64 rng(11);
  OffManifoldState state(chain, KktPath::Dense);
  const KktWorkspace& ws = state.at(chain, rng, 0.2);
  const double q_inf = state.q.lpNorm<Eigen::Infinity>();
  const double phi_inf = ws.phi.lpNorm<Eigen::Infinity>();
  const Vector q0 = Vector::Constant(chain.nq(), 0.5);  // scale Q = max(0.5, min_scale 0.25) = 0.5
  DivergenceOptions options;
  options.min_scale = 0.25;
  options.state_growth = 1.5 * q_inf / 0.5;  // not reached
  options.max_phi_inf = 2.0 * phi_inf;       // not reached
  options.manifold_factor = 1e6;             // not reached
  CHECK(DivergenceRule(options, q0).test(state.q, ws) == DivergenceVerdict::Plausible);
  CHECK(DivergenceRule(options, q0).describe(DivergenceVerdict::Plausible, state.q, ws).empty());

  options.manifold_factor = 0.5 * manifoldDistance(ws) / 0.5;
  DivergenceRule manifold(options, q0);
  REQUIRE(manifold.test(state.q, ws) == DivergenceVerdict::OffManifold);
  const std::string off = manifold.describe(DivergenceVerdict::OffManifold, state.q, ws);
  CHECK_THAT(off, Contains("|phi_i|/|grad phi_i| = " + formatDouble(manifoldDistance(ws))));
  CHECK_THAT(off, Contains("(row "));
  CHECK(off == manifold.check(state.q, ws));

  options.max_phi_inf = 0.5 * phi_inf;  // tested before the manifold rule
  DivergenceRule phi(options, q0);
  REQUIRE(phi.test(state.q, ws) == DivergenceVerdict::PhiAboveMax);
  CHECK_THAT(phi.check(state.q, ws), Contains("|phi|_inf = " + formatDouble(phi_inf) + " > max_phi_inf"));

  options.state_growth = 0.5 * q_inf / 0.5;  // tested first of all
  DivergenceRule growth(options, q0);
  REQUIRE(growth.test(state.q, ws) == DivergenceVerdict::StateGrowth);
  CHECK_THAT(growth.check(state.q, ws), Contains("|q|_inf = " + formatDouble(q_inf) + " > state_growth"));

  options.enabled = false;
  CHECK(DivergenceRule(options, q0).test(state.q, ws) == DivergenceVerdict::Plausible);
  CHECK(DivergenceRule(options, q0).test(std::numeric_limits<double>::infinity(), ws) == DivergenceVerdict::Plausible);
}

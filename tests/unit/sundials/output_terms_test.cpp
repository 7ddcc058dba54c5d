// What the adaptive drivers evaluate at an output nobody solves at: φ, J and φ̇ alone
// (AccelerationFunction::evaluateConstraintTerms), which must be the bits of the full
// evaluateTerms() (the recorder's ‖φ̇‖∞ and the apps' metrics come from them), and must fail on a
// non-finite state or constraint; and the empty-clone pool that makes SUNDIALS' difference-
// quotient Jacobians allocation-free (lib/src/sundials/sundials_support.hpp).
#include <catch2/catch.hpp>

#include <limits>
#include <random>

#include "../../../lib/src/sundials/sundials_support.hpp"
#include "kktdae/kktdae.hpp"
#include "support/same_bits.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;
using kktdae::testing::sameToTheBit;

TEST_CASE("output terms: phi, J and phi_dot are evaluateTerms()'s to the bit (circle, chains of 2 and 6 links)",
          "[sundials][output]") {
  const CircleMass circle;
  // nc = 2 takes the small φ̇ sums (nc ≤ 4), nc = 6 the general product.
  const PendulumChain two(PendulumChainParams::uniform(2)), six(PendulumChainParams::uniform(6));
  std::mt19937_64 rng(5);
  for (const ConstrainedSystem* system : {static_cast<const ConstrainedSystem*>(&circle),
                                          static_cast<const ConstrainedSystem*>(&two),
                                          static_cast<const ConstrainedSystem*>(&six)}) {
    AccelerationFunction full(*system, Stabilization::baumgarte(5.0, 10.0), KktOptions{});
    AccelerationFunction lean(*system, Stabilization::baumgarte(5.0, 10.0), KktOptions{});
    for (int trial = 0; trial < 10; ++trial) {
      const Vector q = randomVector(rng, system->nq(), 1.5);
      const Vector v = randomVector(rng, system->nq(), 2.0);
      INFO(system->name() << " trial " << trial);
      REQUIRE(full.evaluateTerms(0.3, q, v).ok());
      std::string failure;
      REQUIRE(lean.evaluateConstraintTerms(0.3, q, v, failure));
      CHECK(failure.empty());
      CHECK(sameToTheBit(lean.workspace().phi, full.workspace().phi));
      CHECK(sameToTheBit(lean.workspace().J, full.workspace().J));
      CHECK(sameToTheBit(lean.workspace().phi_dot, full.workspace().phi_dot));
    }
  }
}

TEST_CASE("output terms: a non-finite state fails and says so", "[sundials][output]") {
  const CircleMass circle;
  AccelerationFunction f(circle, Stabilization::baumgarte(5.0, 10.0), KktOptions{});
  const Vector q = (Vector(2) << 0.6, 0.8).finished();
  Vector v = Vector::Zero(2);
  v[1] = std::numeric_limits<double>::quiet_NaN();
  std::string failure;
  CHECK_FALSE(f.evaluateConstraintTerms(0.0, q, v, failure));
  CHECK(failure == "non-finite state (q, v)");
}

TEST_CASE("empty-clone pool: lends its one vector, clones for real while it is out or for another length",
          "[sundials][allocation]") {
  namespace sd = kktdae::detail::sundials;
  sd::Context context;
  sd::EmptyClonePool pool(4, context);
  const sd::VectorPtr y = sd::makeVector(4, context), other = sd::makeVector(3, context);
  pool.installOn(y.get());
  pool.installOn(other.get());
  {
    // Outside a Lending scope the pool lends nothing: a real clone (a pool held by a long-lived
    // Simulator must not lend to another solver's calls).
    N_Vector real = N_VCloneEmpty(y.get());
    REQUIRE(real != nullptr);
    N_VDestroy(real);
  }
  const sd::EmptyClonePool::Lending lending(pool);
  N_Vector first = N_VCloneEmpty(y.get());
  N_Vector second = N_VCloneEmpty(y.get());  // the pool's vector is out: a real clone
  N_Vector shorter = N_VCloneEmpty(other.get());
  REQUIRE(first != nullptr);
  REQUIRE(second != nullptr);
  CHECK(first != second);
  CHECK(N_VGetLength(first) == 4);
  CHECK(N_VGetLength(shorter) == 3);
  // The lent vector works as a view: SUNDIALS points it at a matrix column and writes through it.
  double column[4] = {0.0, 0.0, 0.0, 0.0};
  N_VSetArrayPointer(column, first);
  N_VConst(2.5, first);
  CHECK(column[3] == 2.5);
  N_VDestroy(second);
  N_VDestroy(shorter);
  N_VDestroy(first);  // given back, not freed
  CHECK(N_VGetArrayPointer(first) == nullptr);
  CHECK(N_VCloneEmpty(y.get()) == first);  // lent again
  N_VDestroy(first);
  {
    // An inner pool's scope lends its own vector, and the outer one's again once it closes.
    sd::EmptyClonePool inner(4, context);
    {
      const sd::EmptyClonePool::Lending inner_lending(inner);
      N_Vector lent = N_VCloneEmpty(y.get());
      CHECK(lent != first);
      N_VDestroy(lent);
    }
    CHECK(N_VCloneEmpty(y.get()) == first);
    N_VDestroy(first);
  }
}

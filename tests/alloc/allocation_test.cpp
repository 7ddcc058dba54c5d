// Proves the per-step path allocates nothing after warm-up. Eigen allocates through std::malloc,
// not operator new, so both are replaced: malloc/calloc/realloc count and forward to glibc's
// own entry points, and operator new goes through malloc. Counting is on only while a test holds
// an AllocationCounter. (Not built under the sanitizers, which interpose malloc themselves.)
// GCC cannot see that the replaced operator new below uses malloc, and warns on every free().
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include <atomic>
#include <cstdlib>
#include <new>

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "support/test_models.hpp"

#include "alloc/allocation_counter.hpp"

namespace kktdae::testing {
std::atomic<bool> counting_allocations{false};
std::atomic<long> allocation_count{0};
std::atomic<long long> allocation_bytes{0};
}  // namespace kktdae::testing

using kktdae::testing::AllocationCounter;
using kktdae::testing::allocation_bytes;
using kktdae::testing::allocation_count;
using kktdae::testing::counting_allocations;

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);

void* malloc(std::size_t size) {
  if (counting_allocations) {
    ++allocation_count;
    allocation_bytes += static_cast<long long>(size);
  }
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  if (counting_allocations) {
    ++allocation_count;
    allocation_bytes += static_cast<long long>(count * size);
  }
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  if (counting_allocations) {
    ++allocation_count;
    allocation_bytes += static_cast<long long>(size);
  }
  return __libc_realloc(p, size);
}
}

void* operator new(std::size_t size) {
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace kktdae;

namespace {

void requireNoAllocationInSolves(const ConstrainedSystem& system, KktForm form) {
  KktWorkspace ws(system);
  KktOptions options;
  options.form = form;
  std::mt19937_64 rng(1);
  const Vector q = testing::randomVector(rng, system.nq(), 1.0);
  const Vector v = testing::randomVector(rng, system.nq(), 1.0);
  const Vector u = Vector::Constant(system.nu(), 0.5);
  const Stabilization stab = Stabilization::critical(20.0);
  REQUIRE(solveAccelerations(system, 0.1, q, v, u, stab, options, ws).ok());  // warm-up
  long count = 0;
  {
    AllocationCounter counter;
    for (int i = 0; i < 50; ++i) solveAccelerations(system, 0.1 + i, q, v, u, stab, options, ws);
    count = counter.count();
  }
  INFO(system.name() << " " << toString(form));
  CHECK(count == 0);
}

}  // namespace

TEST_CASE("allocation: the counter sees an allocation (self-check)", "[allocation]") {
  long count = 0;
  {
    AllocationCounter counter;
    Vector scratch(1000);
    scratch.setZero();
    count = counter.count();
  }
  CHECK(count >= 1);
}

TEST_CASE("allocation: KKT solves allocate nothing after warm-up (both forms, diagonal and dense M)",
          "[allocation]") {
  testing::JointDoublePendulum::Params slot;
  slot.rotating_slot = true;
  const testing::JointDoublePendulum dense_mass(slot);
  const PendulumChain chain(PendulumChainParams::uniform(5));
  const CircleMass circle;
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    requireNoAllocationInSolves(chain, form);
    requireNoAllocationInSolves(circle, form);
    requireNoAllocationInSolves(dense_mass, form);
  }
}

TEST_CASE("allocation: the Test Set models' KKT solves allocate nothing (dense q-dependent M, time-dependent phi)",
          "[allocation][testset]") {
  const AndrewsSqueezer andrews;
  const CarAxis car;
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    requireNoAllocationInSolves(andrews, form);
    requireNoAllocationInSolves(car, form);
  }
}

TEST_CASE("allocation: fixed-step steps allocate nothing after warm-up", "[allocation]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  using Step = KktResult (*)(AccelerationFunction&, State&, double, ConstVectorRef, StepWorkspace&);
  const std::pair<const char*, Step> steppers[] = {
      {"euler", &explicitEulerStep}, {"semi_implicit", &semiImplicitEulerStep}, {"rk4", &rk4Step}};
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    for (const auto& [name, step] : steppers) {
      KktOptions options;
      options.form = form;
      AccelerationFunction f(chain, Stabilization::critical(20.0), options);
      StepWorkspace ws(chain.nq());
      State state = chain.initialState(0.2);
      Vector qdd(chain.nq());
      REQUIRE(f.evaluate(state.t, state.q, state.v, qdd).ok());
      REQUIRE(step(f, state, 0.005, qdd, ws).ok());  // warm-up
      long count = 0;
      {
        AllocationCounter counter;
        for (int i = 0; i < 100; ++i) {
          f.evaluate(state.t, state.q, state.v, qdd);
          step(f, state, 0.005, qdd, ws);
        }
        count = counter.count();
      }
      INFO(name << " " << toString(form));
      CHECK(count == 0);
    }
  }
}

TEST_CASE("allocation: rank-deficient solves allocate nothing after the first (redundant constraints)",
          "[allocation][redundant]") {
  const testing::DuplicatedCircle redundant;
  Vector q(2), v(2);
  q << 0.6, -0.8;
  v << 0.8, 0.6;
  for (RankDeficiencyPolicy policy : {RankDeficiencyPolicy::MinimumNorm, RankDeficiencyPolicy::Regularize}) {
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      KktOptions options;
      options.form = form;
      options.rank_deficiency = policy;
      AccelerationFunction f(redundant, Stabilization::critical(20.0), options);
      Vector qdd(2);
      REQUIRE(f.evaluate(0.0, q, v, qdd).rank_deficient);  // warm-up: sizes the buffers, names the rows
      long count = 0;
      {
        AllocationCounter counter;
        for (int i = 0; i < 50; ++i) f.evaluate(0.01 * i, q, v, qdd);
        count = counter.count();
      }
      INFO(toString(policy) << " " << toString(form));
      CHECK(f.rankDeficiency().solves == 51);
      CHECK(count == 0);
    }
  }
}

TEST_CASE("allocation: sparse-path solves, steps and projections allocate nothing after warm-up",
          "[allocation][sparse]") {
  const PendulumChain chain(PendulumChainParams::uniform(30));
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    for (const Stabilization& stabilization : {Stabilization::critical(20.0), Stabilization::softConstraint()}) {
      KktOptions options;
      options.form = form;
      options.path = KktPath::Sparse;
      AccelerationFunction f(chain, stabilization, options);
      REQUIRE(f.workspace().sparse);
      StepWorkspace ws(chain.nq());
      ProjectionWorkspace projection_ws(chain, options);
      REQUIRE(projection_ws.sparse);
      State state = chain.initialState(0.2);
      Vector qdd(chain.nq());
      REQUIRE(f.evaluate(state.t, state.q, state.v, qdd).ok());
      REQUIRE(rk4Step(f, state, 0.001, qdd, ws).ok());  // warm-up: the block form's first LU
      REQUIRE(projectToManifold(chain, state, ProjectionOptions{}, projection_ws).converged);
      long count = 0;
      {
        AllocationCounter counter;
        for (int i = 0; i < 50; ++i) {
          f.evaluate(state.t, state.q, state.v, qdd);
          rk4Step(f, state, 0.001, qdd, ws);
          projectToManifold(chain, state, ProjectionOptions{}, projection_ws);
        }
        count = counter.count();
      }
      INFO(toString(form) << ", " << stabilization.describe());
      CHECK(count == 0);
    }
  }
}

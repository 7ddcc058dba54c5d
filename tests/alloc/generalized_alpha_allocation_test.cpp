// The generalized-α step allocates nothing after warm-up, with the dense LU and with KLU.
#include <catch2/catch.hpp>

#include "alloc/allocation_counter.hpp"
#include "kktdae/kktdae.hpp"

using namespace kktdae;
using kktdae::testing::AllocationCounter;

TEST_CASE("allocation: generalized-alpha steps allocate nothing after warm-up (dense LU and KLU)",
          "[allocation][generalized_alpha]") {
  const PendulumChain plain(PendulumChainParams::uniform(10, 1.0, 0.1));
  // The spring chain adds the band of dh/d(q, v) to the sparse matrix (its own difference loop).
  const SpringChain springs(SpringChainParams{PendulumChainParams::uniform(10, 1.0, 0.1), 500.0, 0.5});
  for (const ConstrainedSystem* model : {static_cast<const ConstrainedSystem*>(&plain),
                                         static_cast<const ConstrainedSystem*>(&springs)}) {
    const ConstrainedSystem& chain = *model;
    const State initial = model == &plain ? plain.initialState(0.3) : springs.initialState(0.3);
    for (IterationMatrix matrix : {IterationMatrix::Dense, IterationMatrix::Sparse}) {
      for (JacobianReuse reuse : {JacobianReuse::EveryIteration, JacobianReuse::EveryStep}) {
        FixedStepperSetup setup;
        setup.integrator = Integrator::GeneralizedAlpha;
        setup.generalized_alpha.iteration_matrix = matrix;
        setup.generalized_alpha.jacobian_reuse = reuse;
        const std::unique_ptr<FixedStepper> stepper = makeFixedStepper(chain, setup);
        State state = initial;
        REQUIRE(stepper->reset(state).ok());
        // Warm-up: the first factorization (KLU pivots and allocates its numeric object here).
        for (int i = 0; i < 3; ++i) REQUIRE(stepper->step(state, 0.01).ok());
        const long factorizations_before = stepper->factorizations();
        long count = 0;
        bool ok = true;
        {
          AllocationCounter counter;
          for (int i = 0; i < 20; ++i) {
            ok = stepper->step(state, 0.01).ok() && ok;
            ok = stepper->settle(state).ok() && ok;
          }
          count = counter.count();
        }
        INFO(chain.name() << ", " << toString(matrix) << ", reuse " << static_cast<int>(reuse));
        REQUIRE(ok);
        CHECK(stepper->factorizations() > factorizations_before);  // the counted steps did refactorize
        CHECK(count == 0);
      }
    }
  }
}

namespace {

/// Bytes a whole two-step run allocates (stepper, KLU, KKT workspace, recorder) on an n-link chain.
long long bytesOfTwoSteps(int links, Integrator integrator) {
  const PendulumChain chain(PendulumChainParams::uniform(links));
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = 0.005;
  options.steps = 2;
  const State initial = chain.initialState(0.3);
  AllocationCounter counter;
  const Summary summary = simulate(chain, initial, options);
  REQUIRE(summary.ok());
  return counter.bytes();
}

}  // namespace

TEST_CASE("allocation: a generalized-alpha or HHT run on a long chain allocates memory linear in its links",
          "[allocation][generalized_alpha]") {
  // The sparse path (taken by itself from 4 links) holds nothing nq x nq: doubling the links at
  // most doubles the bytes (plus KLU's fill and rounding). A dense block anywhere in the step
  // makes the ratio about 4 (it was 3.9 with the dense derivative blocks of 300 to 600 links).
  for (Integrator integrator : {Integrator::GeneralizedAlpha, Integrator::Hht}) {
    const long long small = bytesOfTwoSteps(300, integrator);
    const long long large = bytesOfTwoSteps(600, integrator);
    INFO(toString(integrator) << ": " << small << " bytes at 300 links, " << large << " at 600");
    CHECK(static_cast<double>(large) < 2.3 * static_cast<double>(small));
  }
}

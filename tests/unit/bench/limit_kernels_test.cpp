// The benchmark's limit kernels (apps/bench/limit_kernels.hpp) take the library's step: a few
// hundred semi-implicit Euler steps of seed 000's chain with Baumgarte's stabilization, kernel
// against AccelerationFunction + semiImplicitEulerStep, agree to round-off. (Measured: at most
// 2e-15 in q, 5e-15 in v for the double pendulum; 7e-15 and 1.5e-13 for 40 links: the bounds
// leave two orders of magnitude for other compilers' rounding, far below any difference of method
// — a wrong sign or a missing term shows at 1e-4 within a step.)
#include <catch2/catch.hpp>

#include "../../../apps/bench/limit_kernels.hpp"
#include "kktdae/kktdae.hpp"

namespace {
using namespace kktdae;

struct Deviation {
  double q = 0.0, v = 0.0;
};

/// Runs `steps` steps of both from seed 000's launch and returns the largest |Δq|, |Δv| seen.
template <class KernelStep>
Deviation runBoth(int links, int steps, double dt, const bench::limit::ChainConstants& c, KernelStep kernel_step) {
  const PendulumChain chain(PendulumChainParams::uniform(links));
  const State start = chain.initialState(0.013696168732145436);  // seed 000's tilt
  AccelerationFunction f(chain, Stabilization::baumgarte(c.alpha, c.beta), KktOptions{});
  StepWorkspace ws(chain.nq());
  State lib = start;
  Vector qdd(chain.nq());
  Vector q = start.q, v = start.v;
  Deviation worst;
  for (int i = 0; i < steps; ++i) {
    REQUIRE(f.evaluate(lib.t, lib.q, lib.v, qdd).ok());
    REQUIRE(semiImplicitEulerStep(f, lib, dt, qdd, ws).ok());
    REQUIRE(kernel_step(q.data(), v.data()));
    worst.q = std::max(worst.q, (q - lib.q).cwiseAbs().maxCoeff());
    worst.v = std::max(worst.v, (v - lib.v).cwiseAbs().maxCoeff());
  }
  return worst;
}

}  // namespace

TEST_CASE("limit kernel: the double pendulum's fixed-size step is the library's to round-off", "[bench][limit]") {
  const double dt = 0.005;
  for (const double omega : {0.0, 20.0}) {
    const bench::limit::ChainConstants c{9.81, omega, omega};
    const Deviation d = runBoth(2, 400, dt, c, [&](double* q, double* v) {
      return bench::limit::doublePendulumStep(q, v, dt, c);
    });
    CAPTURE(omega, d.q, d.v);
    CHECK(d.q < 1e-12);
    CHECK(d.v < 1e-11);
  }
}

TEST_CASE("limit kernel: the N-link tridiagonal step is the library's to round-off", "[bench][limit]") {
  const double dt = 0.005;
  for (const int links : {1, 2, 3, 10, 40}) {
    bench::limit::ChainScratch scratch(links);
    const bench::limit::ChainConstants c{9.81, 20.0, 20.0};
    const Deviation d = runBoth(links, 300, dt, c, [&](double* q, double* v) {
      return bench::limit::chainStep(q, v, dt, c, scratch);
    });
    CAPTURE(links, d.q, d.v);
    CHECK(d.q < 1e-12 * links);
    CHECK(d.v < 1e-11 * links);
  }
}

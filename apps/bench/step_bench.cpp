// One fixed step of each integrator on an N-link PendulumChain, Schur form, no stabilization:
// the KKT solve at the state reached plus the stepper (RK4 adds three inner solves), exactly
// the work simulate() does per step minus its bookkeeping. The double pendulum's semi-implicit
// step is the headline number (compared with MuJoCo's Euler step in mujoco_bench.cpp). Dense
// and sparse paths (the sparse one up to 100000 links), and a finer semi-implicit sweep around
// the size where the sparse step overtakes the dense one. Chains of ≥ kStiffLinks links step
// with kStiffDt (bench_setup.hpp).
#include <string>

#include "bench_setup.hpp"

namespace kktdae::bench {
void timeSteps(benchmark::State& state, const ConstrainedSystem& system, const State& start, StepFunction step,
               const KktOptions& options, double dt, const Stabilization& stabilization) {
  AccelerationFunction f(system, stabilization, options);
  StepWorkspace ws(system.nq());
  State current = start;
  Vector qdd(system.nq());
  long since_reset = 0;
  for (auto _ : state) {
    if (since_reset++ == kStepsBetweenResets) {
      current.t = start.t;
      current.q = start.q;  // same sizes: copies, no allocation
      current.v = start.v;
      since_reset = 1;
    }
    const KktResult solved = f.evaluate(current.t, current.q, current.v, qdd);
    const KktResult stepped = step(f, current, dt, qdd, ws);
    if (!solved.ok() || !stepped.ok()) {
      state.SkipWithError((solved.ok() ? stepped.message : solved.message).c_str());
      break;
    }
    benchmark::DoNotOptimize(current.q.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void registerStepBenchmarks() {
  struct Stepper {
    const char* name;
    StepFunction step;
  };
  for (const Stepper stepper : {Stepper{"explicit_euler", &explicitEulerStep},
                                Stepper{"semi_implicit", &semiImplicitEulerStep}, Stepper{"rk4", &rk4Step}}) {
    registerOverPathsAndSizes(std::string("step/") + stepper.name + "/schur",
                              [stepper](benchmark::State& state, KktPath path, int links) {
                                const PendulumChain chain(PendulumChainParams::uniform(links));
                                timeSteps(state, chain, chain.initialState(seedTilt()), stepper.step,
                                          kktOptions(KktForm::Schur, path), stepDt(links));
                              });
  }
  // Between the sweep's 5, 10 and 20 links: where sparse overtakes dense (KktOptions'
  // sparse_min_coordinates). Both paths, N = 6 … 16; and the dense path without its 1-norm
  // condition estimate over N = 2 … 20 (estimate_condition = false), since the sparse path never
  // runs one (it checks the LDLᵀ pivot ratio, an O(N) by-product of the factorization).
  for (const KktPath path : allPaths()) {
    registerOverSizes(std::string("crossover/semi_implicit/schur/") + pathName(path),
                      [path](benchmark::State& state, int links) {
                        const PendulumChain chain(PendulumChainParams::uniform(links));
                        timeSteps(state, chain, chain.initialState(seedTilt()), &semiImplicitEulerStep,
                                  kktOptions(KktForm::Schur, path));
                      },
                      {6, 8, 12, 14, 16});
  }
  registerOverSizes("crossover/semi_implicit/schur/dense_no_estimate",
                    [](benchmark::State& state, int links) {
                      const PendulumChain chain(PendulumChainParams::uniform(links));
                      KktOptions options = kktOptions(KktForm::Schur, KktPath::Dense);
                      options.estimate_condition = false;
                      timeSteps(state, chain, chain.initialState(seedTilt()), &semiImplicitEulerStep, options);
                    },
                    {2, 5, 6, 8, 10, 12, 14, 16, 20});
}

}  // namespace kktdae::bench

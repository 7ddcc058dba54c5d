// The C++ side of the Python bindings' first target (docs/python.md): seed 000's run, 4000
// semi-implicit steps of the double pendulum, through simulate() with the TrajectoryRecording the
// Python simulate() fills (t, q, v, λ, ‖φ‖∞, energy at every step). apps/python/bench_python.py
// times the same run from Python and compares the medians. Registered statically: it needs no
// sweep over sizes.
#include <benchmark/benchmark.h>

#include "bench_setup.hpp"

namespace kktdae::bench {
namespace {

void simulateRecorded(benchmark::State& state) {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(seedTilt());
  SimulationOptions options;
  options.integrator = Integrator::SemiImplicitEuler;
  options.dt = 0.005;
  options.steps = 4000;
  for (auto _ : state) {
    TrajectoryRecording recording(chain, 4002);  // what the binding reserves: steps / observe_every + 2
    const Summary summary = simulate(chain, start, options,
                                     [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                       recording.observe(t, q, v, lambda);
                                     });
    if (!summary.ok()) {
      state.SkipWithError(summary.message.c_str());
      break;
    }
    benchmark::DoNotOptimize(recording.energies().data());
  }
}

}  // namespace
}  // namespace kktdae::bench

BENCHMARK(kktdae::bench::simulateRecorded)
    ->Name("simulate_recorded/semi_implicit/schur/dense/N:2")
    ->Unit(benchmark::kMicrosecond);

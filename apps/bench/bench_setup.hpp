#pragma once
// What every benchmark shares: the chain sizes of the sweeps, seed 000's launch tilt, the KKT
// "path" axis and the helper that registers one benchmark body over (path, N).
//
// Names follow one pattern that scripts/bench_report.py parses:
//     <group>/<variant>/.../<path>/N:<links>      e.g. step/semi_implicit/schur/dense/N:2
// (MuJoCo has no KKT path: mujoco_step/<coordinates>/N:<links>.)

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kktdae/kktdae.hpp"

namespace kktdae::bench {

/// The link counts of every size sweep: 2 (the double pendulum, the headline) … 200.
const std::vector<int>& chainSizes();

/// Seed 000's launch tilt below +x [rad]: the first numpy default_rng(seed).uniform(−0.05, 0.05)
/// draw, exactly as apps/constraints draws it.
double seedTilt(std::uint64_t seed = 0);

/// How the KKT system is assembled and factorized. Only the dense path exists today; a sparse
/// path joins this enum, allPaths() and kktOptions(), and every benchmark registered through
/// registerOverSizes() then runs on it too.
enum class KktPath { Dense };
/// "dense".
const char* toString(KktPath path);
/// Every path the library offers.
const std::vector<KktPath>& allPaths();
/// The library's default KKT options with this form and path.
KktOptions kktOptions(KktForm form, KktPath path);

/// A benchmark body over a chain of `links` links on one KKT path.
using SizedBody = std::function<void(benchmark::State& state, KktPath path, int links)>;

/// Registers `<name>/<path>/N:<links>` for every path and every size in `sizes`, each iteration
/// timed in microseconds.
void registerOverPathsAndSizes(const std::string& name, const SizedBody& body,
                               const std::vector<int>& sizes = chainSizes());

/// Registers `<name>/N:<links>` for every size (for code with no KKT path: MuJoCo).
void registerOverSizes(const std::string& name, const std::function<void(benchmark::State&, int)>& body,
                       const std::vector<int>& sizes = chainSizes());

/// Steps between resets to the initial state in the step loops, so that a benchmark of any
/// length times the same stretch of motion (the first second of the swing at dt = 0.005 s).
/// Longer stretches are not representative: unstabilized explicit Euler drives a 20- or 50-link
/// chain to an ill-conditioned J M⁻¹ Jᵀ (rcond < 1e-13, the solve refuses) within 1000 steps.
inline constexpr long kStepsBetweenResets = 200;
/// The step every step benchmark takes [s] (seed 000's).
inline constexpr double kDt = 0.005;

/// A fixed-step integrator's step (lib/include/kktdae/integrators/fixed_steppers.hpp).
using StepFunction = KktResult (*)(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd,
                                   StepWorkspace& ws);

/// Times one step per iteration of `step` on `system` from `start` with no stabilization: the
/// KKT solve at the current state, then the step (step_bench.cpp; model_bench.cpp reuses it).
/// Resets to `start` every kStepsBetweenResets steps; a failed solve ends the benchmark with
/// the solver's message.
void timeSteps(benchmark::State& state, const ConstrainedSystem& system, const State& start, StepFunction step,
               const KktOptions& options);

/// The per-file registration functions, called once by bench_main.cpp.
void registerKktSolveBenchmarks();
void registerStepBenchmarks();
void registerModelBenchmarks();
void registerMujocoBenchmarks();  // only with MuJoCo (mujoco_bench.cpp)

}  // namespace kktdae::bench

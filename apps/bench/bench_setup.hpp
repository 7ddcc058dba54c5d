#pragma once
// What every benchmark shares: the chain sizes of the sweeps, seed 000's launch tilt, the KKT
// path axis (the library's KktPath: dense or sparse) and the helper that registers one benchmark
// body over (path, N).
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

/// The link counts of the dense sweeps and of the MuJoCo sanity check: 2 (the double pendulum,
/// the headline) … 200. Beyond 200 the dense solve's O(N³) makes a step take seconds.
const std::vector<int>& chainSizes();

/// The link counts swept on `path`: chainSizes() for the dense path; for the sparse path also
/// 1000, 10000 and 100000 (an O(N) solve). Sizes above maxLinks() are left out.
std::vector<int> chainSizes(KktPath path);

/// The largest chain any benchmark registers (--kktdae_max_links; unlimited by default). The
/// smoke run (scripts/bench.sh --smoke) sets 1000 so that it stays within seconds.
int maxLinks();
/// Sets maxLinks() (before the benchmarks are registered).
void setMaxLinks(int links);

/// From this many links on, a benchmark gets a smaller minimum time (kLargeMinTime) than the
/// command line's: a step of a 100000-link chain takes tens of milliseconds, and rebuilding the
/// workspace for each of Google Benchmark's runs costs more than timing it.
inline constexpr int kLargeLinks = 10000;
/// The minimum time [s] of a benchmark of ≥ kLargeLinks links (full run only; see maxLinks()).
inline constexpr double kLargeMinTime = 0.05;

/// Seed 000's launch tilt below +x [rad]: the first numpy default_rng(seed).uniform(−0.05, 0.05)
/// draw, exactly as apps/constraints draws it.
double seedTilt(std::uint64_t seed = 0);

/// The paths every benchmark runs on: KktPath::Dense and KktPath::Sparse, forced (never Auto,
/// so that a name says what was timed).
const std::vector<KktPath>& allPaths();
/// "dense" / "sparse" (the library's names).
const char* pathName(KktPath path);
/// The library's default KKT options with this form and path (KktOptions::path = path).
KktOptions kktOptions(KktForm form, KktPath path);

/// A benchmark body over a chain of `links` links on one KKT path.
using SizedBody = std::function<void(benchmark::State& state, KktPath path, int links)>;

/// Registers `<name>/<path>/N:<links>` for every path in `paths` and every size of
/// chainSizes(path), each iteration timed in microseconds.
void registerOverPathsAndSizes(const std::string& name, const SizedBody& body,
                               const std::vector<KktPath>& paths = allPaths());

/// Registers `<name>/N:<links>` for every size in `sizes` up to maxLinks() (for code with no
/// KKT path: MuJoCo, the factorization comparison).
void registerOverSizes(const std::string& name, const std::function<void(benchmark::State&, int)>& body,
                       const std::vector<int>& sizes = chainSizes());

/// Steps between resets to the initial state in the step loops, so that a benchmark of any
/// length times the same stretch of motion (the first second of the swing at dt = 0.005 s).
/// Longer stretches are not representative: unstabilized explicit Euler drives a 20- or 50-link
/// chain to an ill-conditioned J M⁻¹ Jᵀ (rcond < 1e-13, the solve refuses) within 1000 steps.
inline constexpr long kStepsBetweenResets = 200;
/// The step every step benchmark takes [s] (seed 000's) up to kStiffLinks links.
inline constexpr double kDt = 0.005;
/// From this many links on, the step benchmarks take kStiffDt: a long chain launched nearly
/// horizontal whips, and unstabilized explicit Euler at 0.005 s collapses a 1000-link chain's
/// links (J M⁻¹ Jᵀ loses rank) within the 200 steps between resets.
inline constexpr int kStiffLinks = 1000;
/// The step [s] of the step benchmarks of ≥ kStiffLinks links (the time per step hardly
/// depends on it: the work is the same).
inline constexpr double kStiffDt = 1e-4;
/// kDt, or kStiffDt for a chain of ≥ kStiffLinks links.
inline double stepDt(int links) { return links >= kStiffLinks ? kStiffDt : kDt; }

/// A fixed-step integrator's step (lib/include/kktdae/integrators/fixed_steppers.hpp).
using StepFunction = KktResult (*)(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd,
                                   StepWorkspace& ws);

/// Times one step of `dt` per iteration of `step` on `system` from `start` under `stabilization`
/// (none unless given): the KKT solve at the current state, then the step (step_bench.cpp;
/// model_bench.cpp and limit_bench.cpp reuse it).
/// Resets to `start` every kStepsBetweenResets steps; a failed solve ends the benchmark with
/// the solver's message.
void timeSteps(benchmark::State& state, const ConstrainedSystem& system, const State& start, StepFunction step,
               const KktOptions& options, double dt = kDt,
               const Stabilization& stabilization = Stabilization::none());

/// The per-file registration functions, called once by bench_main.cpp.
void registerKktSolveBenchmarks();
void registerStepBenchmarks();
void registerModelBenchmarks();
void registerFactorizationBenchmarks();
void registerLimitBenchmarks();
void registerAdaptiveOverheadBenchmarks();
void registerMujocoBenchmarks();  // only with MuJoCo (mujoco_bench.cpp)

}  // namespace kktdae::bench

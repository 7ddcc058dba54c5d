// kktdae-bench: the benchmark suite (Google Benchmark). Every flag is Google Benchmark's
// (--benchmark_filter, --benchmark_min_time, --benchmark_repetitions, --benchmark_out, …);
// scripts/bench.sh runs it. With MuJoCo, it first checks once that the MuJoCo chains are ours.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "bench_setup.hpp"
#ifdef KKTDAE_BENCH_MUJOCO
#include <mujoco/mujoco.h>

#include "mujoco_bench.hpp"
#endif

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  using namespace kktdae::bench;
  registerKktSolveBenchmarks();
  registerStepBenchmarks();
  registerModelBenchmarks();
#ifdef KKTDAE_BENCH_MUJOCO
  if (!checkMujocoChains(stderr)) {
    std::fputs("kktdae-bench: the MuJoCo chains are not the benchmark's chains; not timing them\n", stderr);
    return 1;
  }
  registerMujocoBenchmarks();
  benchmark::AddCustomContext("mujoco_version", mj_versionString());
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

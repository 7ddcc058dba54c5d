// kktdae-bench: the benchmark suite (Google Benchmark). Every flag is Google Benchmark's
// (--benchmark_filter, --benchmark_min_time, --benchmark_repetitions, --benchmark_out, …) but
// one: --kktdae_max_links=N leaves out every chain of more than N links (the smoke run's 1000).
// scripts/bench.sh runs it. With MuJoCo, it first checks once that the MuJoCo chains are ours.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_setup.hpp"
#ifdef KKTDAE_BENCH_MUJOCO
#include <mujoco/mujoco.h>

#include "mujoco_bench.hpp"
#endif

int main(int argc, char** argv) {
  using namespace kktdae::bench;
  // Our one flag, taken out before Google Benchmark sees the rest.
  static constexpr const char kMaxLinks[] = "--kktdae_max_links=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kMaxLinks, sizeof kMaxLinks - 1) == 0) {
      const int links = std::atoi(argv[i] + sizeof kMaxLinks - 1);
      if (links < 1) {
        std::fprintf(stderr, "kktdae-bench: %s needs a positive link count\n", argv[i]);
        return 1;
      }
      setMaxLinks(links);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  registerKktSolveBenchmarks();
  registerStepBenchmarks();
  registerModelBenchmarks();
  registerFactorizationBenchmarks();
  registerLimitBenchmarks();
  registerAdaptiveOverheadBenchmarks();
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

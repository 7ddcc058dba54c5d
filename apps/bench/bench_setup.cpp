#include "bench_setup.hpp"

namespace kktdae::bench {

const std::vector<int>& chainSizes() {
  static const std::vector<int> sizes{2, 5, 10, 20, 50, 100, 200};
  return sizes;
}

double seedTilt(std::uint64_t seed) {
  NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(seed);
  return rng.uniform(-0.05, 0.05);
}

const char* toString(KktPath path) {
  switch (path) {
    case KktPath::Dense: return "dense";
  }
  return "unknown";
}

const std::vector<KktPath>& allPaths() {
  static const std::vector<KktPath> paths{KktPath::Dense};
  return paths;
}

KktOptions kktOptions(KktForm form, KktPath path) {
  KktOptions options;
  options.form = form;
  switch (path) {
    case KktPath::Dense: break;  // the only path today: dense J, dense factorizations
  }
  return options;
}

void registerOverPathsAndSizes(const std::string& name, const SizedBody& body, const std::vector<int>& sizes) {
  for (const KktPath path : allPaths()) {
    const std::string full_name = name + "/" + toString(path);
    benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
        full_name.c_str(), [body, path](benchmark::State& state) { body(state, path, static_cast<int>(state.range(0))); });
    b->ArgName("N")->Unit(benchmark::kMicrosecond);
    for (const int links : sizes) b->Arg(links);
  }
}

void registerOverSizes(const std::string& name, const std::function<void(benchmark::State&, int)>& body,
                       const std::vector<int>& sizes) {
  benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
      name.c_str(), [body](benchmark::State& state) { body(state, static_cast<int>(state.range(0))); });
  b->ArgName("N")->Unit(benchmark::kMicrosecond);
  for (const int links : sizes) b->Arg(links);
}

}  // namespace kktdae::bench

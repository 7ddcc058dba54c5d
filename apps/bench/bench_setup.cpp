#include "bench_setup.hpp"

#include <limits>

namespace kktdae::bench {
namespace {
int max_links = std::numeric_limits<int>::max();
}  // namespace

const std::vector<int>& chainSizes() {
  static const std::vector<int> sizes{2, 5, 10, 20, 50, 100, 200};
  return sizes;
}

std::vector<int> chainSizes(KktPath path) {
  std::vector<int> sizes = chainSizes();
  if (path == KktPath::Sparse) sizes.insert(sizes.end(), {1000, 10000, 100000});
  std::vector<int> kept;
  for (const int links : sizes) {
    if (links <= max_links) kept.push_back(links);
  }
  return kept;
}

int maxLinks() { return max_links; }
void setMaxLinks(int links) { max_links = links; }

double seedTilt(std::uint64_t seed) {
  NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(seed);
  return rng.uniform(-0.05, 0.05);
}

const std::vector<KktPath>& allPaths() {
  static const std::vector<KktPath> paths{KktPath::Dense, KktPath::Sparse};
  return paths;
}

const char* pathName(KktPath path) { return path == KktPath::Sparse ? "sparse" : path == KktPath::Dense ? "dense" : "auto"; }

KktOptions kktOptions(KktForm form, KktPath path) {
  KktOptions options;
  options.form = form;
  options.path = path;
  return options;
}

namespace {

/// Registers one family `name` over `sizes`: the small sizes with the command line's minimum
/// time, those of ≥ kLargeLinks links (only present in a full run) in a second family of the
/// same name with kLargeMinTime.
void registerFamilies(const std::string& name, const std::function<void(benchmark::State&)>& run,
                      const std::vector<int>& sizes) {
  std::vector<int> small, large;
  for (const int links : sizes) {
    if (links > max_links) continue;
    (links >= kLargeLinks ? large : small).push_back(links);
  }
  for (const std::vector<int>* family : {&small, &large}) {
    if (family->empty()) continue;
    benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(name.c_str(), run);
    b->ArgName("N")->Unit(benchmark::kMicrosecond);
    if (family == &large) b->MinTime(kLargeMinTime);
    for (const int links : *family) b->Arg(links);
  }
}

}  // namespace

void registerOverPathsAndSizes(const std::string& name, const SizedBody& body, const std::vector<KktPath>& paths) {
  for (const KktPath path : paths) {
    registerFamilies(name + "/" + pathName(path),
                     [body, path](benchmark::State& state) { body(state, path, static_cast<int>(state.range(0))); },
                     chainSizes(path));
  }
}

void registerOverSizes(const std::string& name, const std::function<void(benchmark::State&, int)>& body,
                       const std::vector<int>& sizes) {
  registerFamilies(name, [body](benchmark::State& state) { body(state, static_cast<int>(state.range(0))); }, sizes);
}

}  // namespace kktdae::bench

// One acceleration solve, solveAccelerations(), on an N-link PendulumChain at seed 000's launch
// state: Schur vs block form, over N. Model evaluation (M, h, φ, J, γ) is part of the solve, as
// in every step. Both paths; the sparse one up to 100000 links.
#include "bench_setup.hpp"

namespace kktdae::bench {
namespace {

void kktSolve(benchmark::State& state, KktForm form, KktPath path, int links) {
  const PendulumChain chain(PendulumChainParams::uniform(links));
  const State start = chain.initialState(seedTilt());
  const Vector u;  // nu = 0
  const Stabilization stabilization = Stabilization::none();
  const KktOptions options = kktOptions(form, path);
  KktWorkspace ws(chain, options);  // resolves the path: the solves must use the same options
  if (!solveAccelerations(chain, start.t, start.q, start.v, u, stabilization, options, ws).ok()) {
    state.SkipWithError("the warm-up solve failed");
    return;
  }
  for (auto _ : state) {
    const KktResult result = solveAccelerations(chain, start.t, start.q, start.v, u, stabilization, options, ws);
    benchmark::DoNotOptimize(result.status);
    benchmark::DoNotOptimize(ws.qdd.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

void registerKktSolveBenchmarks() {
  for (const KktForm form : {KktForm::Schur, KktForm::Block}) {
    registerOverPathsAndSizes("kkt_solve/" + std::string(toString(form)),
                              [form](benchmark::State& state, KktPath path, int links) {
                                kktSolve(state, form, path, links);
                              });
  }
}

}  // namespace kktdae::bench

// The same N-link chain written three ways: the hand-written PendulumChain, its ParticleSystem
// twin (built from data, J and γ by hand) and AdPendulumChain (J and γ by automatic
// differentiation). Two timings each: the constraint terms alone (φ, J, γ: where the three
// differ) and a whole semi-implicit Schur step (what the difference costs a user), on the dense
// path: the AD chain offers no sparse J.
#include <memory>
#include <string>

#include "ad_chain.hpp"
#include "bench_setup.hpp"

namespace kktdae::bench {
namespace {

enum class ChainModel { HandWritten, ParticleSystem, AutoDiff };

const char* toString(ChainModel model) {
  switch (model) {
    case ChainModel::HandWritten: return "pendulum_chain";
    case ChainModel::ParticleSystem: return "particle_system";
    case ChainModel::AutoDiff: return "ad_chain";
  }
  return "unknown";
}

std::unique_ptr<ConstrainedSystem> makeChain(ChainModel model, int links) {
  const PendulumChainParams params = PendulumChainParams::uniform(links);
  switch (model) {
    case ChainModel::HandWritten: return std::make_unique<PendulumChain>(params);
    case ChainModel::ParticleSystem:
      return std::make_unique<kktdae::ParticleSystem>(ParticleSystemParams::fromPendulumChain(params));
    case ChainModel::AutoDiff: return std::make_unique<AdPendulumChain>(params);
  }
  return nullptr;
}

/// All three models share PendulumChain's coordinates (particle k at q[3k … 3k+2]).
State launchState(int links) { return PendulumChain(PendulumChainParams::uniform(links)).initialState(seedTilt()); }

void constraintTerms(benchmark::State& state, ChainModel model, int links) {
  const std::unique_ptr<ConstrainedSystem> system = makeChain(model, links);
  const State start = launchState(links);
  Vector phi(system->nc()), gamma(system->nc());
  Matrix J = Matrix::Zero(system->nc(), system->nq());
  for (auto _ : state) {
    system->constraint(start.q, start.t, phi);
    system->constraintJacobian(start.q, start.t, J);
    system->constraintBias(start.q, start.v, start.t, gamma);
    benchmark::DoNotOptimize(phi.data());
    benchmark::DoNotOptimize(J.data());
    benchmark::DoNotOptimize(gamma.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

void registerModelBenchmarks() {
  for (const ChainModel model : {ChainModel::HandWritten, ChainModel::ParticleSystem, ChainModel::AutoDiff}) {
    registerOverSizes(std::string("model_terms/") + toString(model),
                      [model](benchmark::State& state, int links) { constraintTerms(state, model, links); });
  }
  for (const ChainModel model : {ChainModel::HandWritten, ChainModel::ParticleSystem, ChainModel::AutoDiff}) {
    registerOverPathsAndSizes(std::string("model_step/") + toString(model) + "/semi_implicit/schur",
                              [model](benchmark::State& state, KktPath path, int links) {
                                const std::unique_ptr<ConstrainedSystem> system = makeChain(model, links);
                                timeSteps(state, *system, launchState(links), &semiImplicitEulerStep,
                                          kktOptions(KktForm::Schur, path));
                              },
                              {KktPath::Dense});
  }
}

}  // namespace kktdae::bench

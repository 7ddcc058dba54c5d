// The limit rows: the hand-written semi-implicit Euler step of limit_kernels.hpp beside the
// library's step of the same chain under the same Baumgarte stabilization (seed 000's
// critically damped ω = 20 rad/s: α = β = 20), at N = 2 (the fixed-size kernel), 10, 1000 and
// 100000 links. The library runs with its default KktOptions (KktPath::Auto: dense small-Schur
// path at N = 2, the sparse LDLᵀ from 4 links on), as a user's simulation would; RK4 and the
// block form are timed on the same chains for the report. The ratio library / kernel is the
// report's "distance to the limit" (scripts/bench_report.py).
//
//     limit/kernel/semi_implicit/schur/N:<links>
//     limit/library/<semi_implicit|rk4>/<schur|block>/N:<links>
#include <string>

#include "bench_setup.hpp"
#include "limit_kernels.hpp"

namespace kktdae::bench {
namespace {

/// Seed 000's Baumgarte frequency [rad/s] (critical damping: α = β = ω).
constexpr double kOmega = 20.0;

const std::vector<int>& limitSizes() {
  static const std::vector<int> sizes{2, 10, 1000, 100000};
  return sizes;
}

void timeKernel(benchmark::State& state, int links) {
  const PendulumChain chain(PendulumChainParams::uniform(links));
  const State start = chain.initialState(seedTilt());
  const limit::ChainConstants constants{chain.params().gravity, kOmega, kOmega};
  const double dt = stepDt(links);
  limit::ChainScratch scratch(links);
  Vector q = start.q, v = start.v;
  long since_reset = 0;
  for (auto _ : state) {
    if (since_reset++ == kStepsBetweenResets) {
      q = start.q;
      v = start.v;
      since_reset = 1;
    }
    const bool ok = links == 2 ? limit::doublePendulumStep(q.data(), v.data(), dt, constants)
                               : limit::chainStep(q.data(), v.data(), dt, constants, scratch);
    if (!ok) {
      state.SkipWithError("the limit kernel's J Jᵀ is not positive definite");
      break;
    }
    benchmark::DoNotOptimize(q.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

void registerLimitBenchmarks() {
  registerOverSizes("limit/kernel/semi_implicit/schur", &timeKernel, limitSizes());
  struct Variant {
    const char* name;
    StepFunction step;
    KktForm form;
  };
  for (const Variant variant : {Variant{"semi_implicit/schur", &semiImplicitEulerStep, KktForm::Schur},
                                Variant{"rk4/schur", &rk4Step, KktForm::Schur},
                                Variant{"semi_implicit/block", &semiImplicitEulerStep, KktForm::Block}}) {
    registerOverSizes(std::string("limit/library/") + variant.name,
                      [variant](benchmark::State& state, int links) {
                        const PendulumChain chain(PendulumChainParams::uniform(links));
                        KktOptions options;
                        options.form = variant.form;
                        timeSteps(state, chain, chain.initialState(seedTilt()), variant.step, options,
                                  stepDt(links), Stabilization::baumgarte(kOmega, kOmega));
                      },
                      limitSizes());
  }
}

}  // namespace kktdae::bench

#include "kktdae/experiments/chain_comparison.hpp"

namespace kktdae {

std::vector<ChainModeResult> runChainComparison(const PendulumChain& chain, const State& initial,
                                                const std::vector<ChainMode>& modes,
                                                const SimulationOptions& options, bool record_trace) {
  std::vector<ChainModeResult> results;
  results.reserve(modes.size());
  for (const ChainMode& mode : modes) {
    ChainModeResult result;
    result.name = mode.name;
    result.stabilization = mode.stabilization;
    SimulationOptions run_options = options;
    run_options.stabilization = mode.stabilization;
    run_options.observe_every = 1;
    ChainMetricsObserver metrics(chain);
    if (record_trace) result.trace.reserve(static_cast<std::size_t>(options.gridSteps(initial.t)) + 1);
    result.summary = simulate(chain, initial, run_options,
                              [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                metrics.observe(t, q, v);
                                if (record_trace) result.trace.append(chain, t, q, v);
                              });
    result.metrics = metrics.metrics();
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace kktdae

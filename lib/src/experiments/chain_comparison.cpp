#include "kktdae/experiments/chain_comparison.hpp"

namespace kktdae {

std::vector<ChainModeResult> runChainComparison(const PendulumChain& chain, const State& initial,
                                                const std::vector<ChainMode>& modes,
                                                const SimulationOptions& options, bool record_trace,
                                                const Observer& also_observe) {
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
                              [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                // One pass over the state feeds both the metrics and the trace.
                                const ChainStateMeasures measures = measureChainState(chain, q, v, t);
                                metrics.observe(measures);
                                if (record_trace) result.trace.append(t, measures);
                                if (also_observe) also_observe(t, q, v, lambda);
                              });
    result.metrics = metrics.metrics();
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace kktdae
